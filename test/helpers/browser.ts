/**
 * Debian's Chromium driven by playwright-core, headless, for the browser tests: a page that fails
 * its test on any JavaScript dialog (an XSS payload that ran), page error or console error, and
 * screenshots kept under `test-artifacts/screenshots` (FORGE_TEST_ARTIFACTS overrides the folder).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const EXECUTABLE = process.env.FORGE_TEST_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = process.env.FORGE_TEST_ARTIFACTS ?? path.resolve(__dirname, '../../../test-artifacts');

/** Start Chromium (the flags a sandbox-less, offline test machine needs). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: EXECUTABLE,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A page that records what must never happen in it. */
export interface WatchedPage { page: Page; context: BrowserContext; problems: string[] }

/** A new context and page; dialogs are dismissed and recorded, as are page errors, console errors and failed assets. */
export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('dialog', (d) => { problems.push(`dialog: ${d.type()} ${d.message()}`); d.dismiss().catch(() => undefined); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // why: a page answered 4xx on purpose (a form shown again with its error) logs "Failed to load
  // resource", as does an image a user's document names; what matters is the forge's own script,
  // stylesheet or icon failing, caught here.
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console error: ${m.text()}`); });
  page.on('response', (r) => { if (new URL(r.url()).pathname.startsWith('/assets/') && r.status() >= 400) problems.push(`${r.status()} for ${r.url()}`); });
  return { page, context, problems };
}

/** Save a full-page screenshot as `<name>.png` among the test artifacts. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = path.join(ARTIFACTS, 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/**
 * What is wrong with the page as it stands: axe violations of impact serious or critical, and a
 * page wider than the screen at 375 px. Screenshots `<name>-1280` and `<name>-375` are kept; the
 * viewport is 1280 px again afterwards.
 */
export async function pageProblems(page: Page, name: string): Promise<string[]> {
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshot(page, `${name}-1280`);
  const axe = await new AxeBuilder({ page: page as never }).analyze();
  const problems = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${name}: ${v.id} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  await page.setViewportSize({ width: 375, height: 800 });
  const width = await page.evaluate('document.documentElement.scrollWidth') as number;
  await screenshot(page, `${name}-375`);
  await page.setViewportSize({ width: 1280, height: 800 });
  if (width > 375) problems.push(`${name}: ${width} px wide at 375 px`);
  return problems;
}

/** Fail the test on any of the page's problems (pageProblems). */
export async function look(page: Page, name: string): Promise<void> {
  expect(await pageProblems(page, name), name).to.deep.equal([]);
}
