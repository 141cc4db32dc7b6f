/**
 * Root hooks (loaded with mocha's `require`):
 * - a failed test's message ends with what the servers it ran against printed meanwhile (the
 *   logged 500s and their causes), so a failure in CI, which shows only the test output, explains itself;
 * - when FORGE_TEST_TIMES names a file, each test file appends its wall time in seconds and its
 *   top-level suite's title to it, so scripts/test.sh can show which files hold a pass up.
 */
import fs from 'node:fs';
import type Mocha from 'mocha';
import { runningServers, type TestServer } from './server';

const SERVER_LINES = 40;
let started = 0;
let marks = new Map<TestServer, number>();

export const mochaHooks = {
  beforeAll(): void {
    started = Date.now();
  },
  beforeEach(): void {
    marks = new Map([...runningServers].map((s) => [s, s.output.length]));
  },
  afterEach(this: Mocha.Context): void {
    const test = this.currentTest;
    if (test?.state !== 'failed' || !test.err) return;
    const printed = [...new Set([...marks.keys(), ...runningServers])]
      .map((s) => s.output.slice(marks.get(s) ?? 0).trimEnd().split('\n').slice(-SERVER_LINES).join('\n'))
      .filter(Boolean);
    if (printed.length) test.err.message += `\n--- the server printed during this test (last ${SERVER_LINES} lines) ---\n${printed.join('\n---\n')}`;
  },
  afterAll(this: Mocha.Context): void {
    const out = process.env.FORGE_TEST_TIMES;
    const title = this.test?.parent?.suites[0]?.title;
    if (out && title) fs.appendFileSync(out, `${((Date.now() - started) / 1000).toFixed(0)}\t${title}\n`);
  },
};
