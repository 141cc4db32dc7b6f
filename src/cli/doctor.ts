/**
 * `forge doctor check [--fix] [--run NAME[,NAME...]] [--list]`: runs the checks of
 * src/services/doctor and prints them as Gitea does (`[n] Title`, ` - [I|W|E] ...`, then OK or
 * ERROR). Exit status 1 when a problem is left unfixed.
 */
import { CliError, parseArgs, table } from './util';
import { DOCTOR_CHECKS } from '../services/doctor/doctor.service';

/** Run `forge doctor <args>`; the database is open. */
export async function runDoctor(args: string[]): Promise<void> {
  const [verb, ...rest] = args;
  if (verb !== 'check') throw new CliError(`unknown doctor command: ${args.join(' ')}`, true);
  const { flags, lists } = parseArgs(rest, new Set(['fix', 'list', 'all', 'default']));
  if (flags.list === 'true') {
    process.stdout.write(table([['Default', 'Name', 'Title'], ...DOCTOR_CHECKS.map((c) => [c.isDefault ? '*' : '', c.name, c.title])]));
    return;
  }
  const wanted = (lists.run ?? []).flatMap((r) => r.split(',')).map((r) => r.trim().toLowerCase()).filter(Boolean);
  const unknown = wanted.filter((n) => !DOCTOR_CHECKS.some((c) => c.name === n));
  if (unknown.length) throw new CliError(`unknown check: ${unknown.join(', ')} (forge doctor check --list names them)`);
  const checks = wanted.length && flags.all !== 'true' ? DOCTOR_CHECKS.filter((c) => wanted.includes(c.name)) : DOCTOR_CHECKS;
  const fix = flags.fix === 'true';
  let failed = 0;
  for (const [i, check] of checks.entries()) {
    process.stdout.write(`\n[${i + 1}] ${check.title}\n`);
    let left = 0;
    await check.run(fix, {
      info: (msg) => process.stdout.write(` - [I] ${msg}\n`),
      problem: (msg, fixed) => {
        if (!fixed) left++;
        process.stdout.write(fixed ? ` - [W] fixed: ${msg}\n` : ` - [E] ${msg}\n`);
      },
    });
    process.stdout.write(left ? 'ERROR\n' : 'OK\n');
    if (left) failed++;
  }
  process.stdout.write(`\nAll done (checks: ${checks.length}).\n`);
  if (failed) process.exitCode = 1;
}
