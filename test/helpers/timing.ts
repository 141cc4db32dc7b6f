/**
 * Root hooks (loaded with mocha's `require`): when FORGE_TEST_TIMES names a file, each test file
 * appends its wall time in seconds and its top-level suite's title to it, so scripts/test.sh can
 * show which files hold a pass up.
 */
import fs from 'node:fs';
import type Mocha from 'mocha';

let started = 0;

export const mochaHooks = {
  beforeAll(): void {
    started = Date.now();
  },
  afterAll(this: Mocha.Context): void {
    const out = process.env.FORGE_TEST_TIMES;
    const title = this.test?.parent?.suites[0]?.title;
    if (out && title) fs.appendFileSync(out, `${((Date.now() - started) / 1000).toFixed(0)}\t${title}\n`);
  },
};
