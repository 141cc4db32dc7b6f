/**
 * `npm run bench -- <name>`: runs one benchmark scenario and prints its table.
 * Scenarios live beside this file as <name>.ts exporting `run(): Promise<void>`.
 */
import fs from 'node:fs';
import path from 'node:path';

async function main(): Promise<void> {
  const name = process.argv[2];
  const available = fs.readdirSync(__dirname).filter((f) => f.endsWith('.js') && !['run.js', 'util.js', 'probe.js', 'load.js', 'http.js', 'actions-load.js', 'issue-page.js', 'push-answer.js', 'registry.js', 'packages-linux.js', 'oauth2-load.js'].includes(f)).map((f) => f.replace(/\.js$/, ''));
  if (!name || !available.includes(name)) {
    process.stderr.write(`usage: npm run bench -- <${available.join('|')}>\n`);
    process.exit(2);
  }
  const mod = (await import(path.join(__dirname, `${name}.js`))) as { run: () => Promise<void> };
  await mod.run();
}

main().then(() => process.exit(0), (err: unknown) => {
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
