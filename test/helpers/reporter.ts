/**
 * Mocha's spec reporter plus a closing "N passed, N failed" line that CI reads.
 */
import fs from 'node:fs';
import Mocha from 'mocha';

class ForgeReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once('end', () => {
      const s = runner.stats!;
      process.stdout.write(`\ntests: ${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
      if (process.env.FORGE_TEST_STATS) fs.appendFileSync(process.env.FORGE_TEST_STATS, `${s.passes} ${s.failures} ${s.pending}\n`);
    });
  }
}
export = ForgeReporter;
