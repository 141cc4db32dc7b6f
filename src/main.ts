/**
 * The `forge` command, like Gitea's: `forge web`, `forge admin user create ...`, `forge migrate`.
 */
import 'reflect-metadata';
import { ConfigError, StartupError } from './config';
import { bootSettings, bootDatabase } from './boot';
import { closeDatabase } from './db';
import { USAGE } from './cli/usage';
import { CliError, parseArgs } from './cli/util';
import { closeRedis } from './lock/redis';

/** Parse `--flag value`, `--flag=value` and bare `--flag` into a map. */
function flags(args: string[]): Record<string, string> {
  return parseArgs(args, new Set()).flags;
}

function usage(message?: string): never {
  if (message) process.stderr.write(`${message}\n\n`);
  process.stderr.write(USAGE);
  process.exit(2);
}

/** Run the command; resolves to its name once a one-shot command is done or the server has started. */
async function main(argv: string[]): Promise<string | undefined> {
  const args = argv.slice(2).filter((a, i, all) => !(a === '--config' || a === '-c' || a.startsWith('--config=') || all[i - 1] === '--config' || all[i - 1] === '-c'));
  const [cmd, ...rest] = args;
  switch (cmd) {
    case 'web': {
      const { runWeb } = await import('./server');
      await runWeb(flags(rest));
      return cmd;
    }
    case 'migrate': {
      const s = bootSettings();
      const applied = await bootDatabase(s);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      await closeDatabase();
      return cmd;
    }
    case 'admin':
    case 'doctor':
    case 'dump':
    case 'dump-repo':
    case 'restore-repo': {
      await bootDatabase(bootSettings());
      // why: these commands change state (users, repositories, refs), and their events must reach the subscribers.
      (await import('./services/subscribers')).registerSubscribers();
      try {
        if (cmd === 'admin') await (await import('./cli/admin')).runAdmin(rest);
        else if (cmd === 'doctor') await (await import('./cli/doctor')).runDoctor(rest);
        else if (cmd === 'dump-repo') await (await import('./cli/repo-dump')).runDumpRepo(rest);
        else if (cmd === 'restore-repo') await (await import('./cli/repo-dump')).runRestoreRepo(rest);
        else await (await import('./cli/dump')).runDump(rest);
      } finally {
        await closeDatabase();
      }
      return cmd;
    }
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE);
      return cmd;
    default:
      return usage(`unknown command: ${cmd}`);
  }
}

main(process.argv).then(async (cmd) => {
  // why: one-shot commands may have opened Redis (cache invalidation events); close it so the process can end.
  if (cmd !== 'web') {
    await closeRedis();
    process.exit(process.exitCode ?? 0);
  }
}, (err: unknown) => {
  if (err instanceof CliError) {
    if (err.showUsage) usage(err.message);
    process.stderr.write(`Command error: ${err.message}\n`);
    process.exit(1);
  }
  // why: a worker's start-up failure is the primary's to print, once, before it stops the forge.
  if (err instanceof StartupError && process.env.FORGE_WORKER && process.send) {
    process.send({ forgeFatal: err.message }, () => process.exit(1));
    return;
  }
  if (err instanceof ConfigError) process.stderr.write(`configuration error: ${err.message}\n`);
  else if (err instanceof StartupError) process.stderr.write(`forge cannot start: ${err.message}\n`);
  else if (err && typeof err === 'object' && 'status' in err) process.stderr.write(`Command error: ${(err as unknown as Error).message}\n`);
  else process.stderr.write(`error: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
