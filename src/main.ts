/**
 * The `forge` command, like Gitea's: `forge web`, `forge admin user create ...`, `forge migrate`.
 */
import 'reflect-metadata';
import { ConfigError } from './config';
import { bootSettings, bootDatabase } from './boot';
import { closeDatabase, systemCtx } from './db';
import { closeRedis } from './lock/redis';

const USAGE = `usage: forge <command> [--config app.ini]

commands:
  web                         start the server (HTTP and SSH)
  migrate                     apply pending database migrations
  admin user create --username U --password P --email E [--admin] [--must-change-password=false]
                    [--restricted] [--access-token] [--access-token-name N] [--access-token-scopes S]
                              create a user
  admin badge create --slug S [--description D] [--image-url U]
                              create a badge that administrators can give to users
`;

/** Parse `--flag value`, `--flag=value` and bare `--flag` into a map. */
function flags(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else if (args[i + 1] !== undefined && !args[i + 1].startsWith('--')) out[a.slice(2)] = args[++i];
    else out[a.slice(2)] = 'true';
  }
  return out;
}

function usage(message?: string): never {
  if (message) process.stderr.write(`${message}\n\n`);
  process.stderr.write(USAGE);
  process.exit(2);
}

async function adminUserCreate(args: string[]): Promise<void> {
  const f = flags(args);
  for (const k of ['username', 'password', 'email']) if (!f[k]) usage(`missing --${k}`);
  const s = bootSettings();
  await bootDatabase(s);
  const { createUser } = await import('./services/user/user.service');
  const { createAccessToken } = await import('./services/user/token.service');
  const { user, warning } = await createUser(systemCtx, {
    username: f.username,
    password: f.password,
    email: f.email,
    isAdmin: f.admin === 'true',
    restricted: f.restricted === 'true',
    mustChangePassword: f['must-change-password'] !== 'false',
  }, 'admin');
  if (warning) process.stderr.write(`warning: ${warning}\n`);
  process.stdout.write(`New user '${user.name}' has been successfully created!\n`);
  if (f['access-token'] === 'true') {
    const tok = await createAccessToken(systemCtx, user, f['access-token-name'] ?? 'gitea-admin', (f['access-token-scopes'] ?? 'all').split(','));
    process.stdout.write(`${tok.raw}\n`);
  }
  await closeDatabase();
}

async function adminBadgeCreate(args: string[]): Promise<void> {
  const f = flags(args);
  if (!f.slug) usage('missing --slug');
  const s = bootSettings();
  await bootDatabase(s);
  const { createBadge } = await import('./services/user/badge.service');
  const badge = await createBadge(systemCtx, { slug: f.slug, description: f.description ?? '', imageUrl: f['image-url'] ?? '' });
  process.stdout.write(`New badge '${badge.slug}' has been successfully created!\n`);
  await closeDatabase();
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
      if (rest[0] === 'user' && rest[1] === 'create') return adminUserCreate(rest.slice(2)).then(() => cmd);
      if (rest[0] === 'badge' && rest[1] === 'create') return adminBadgeCreate(rest.slice(2)).then(() => cmd);
      return usage(`unknown admin command: ${rest.join(' ')}`);
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
  if (err instanceof ConfigError) process.stderr.write(`configuration error: ${err.message}\n`);
  else if (err && typeof err === 'object' && 'status' in err) process.stderr.write(`error: ${(err as unknown as Error).message}\n`);
  else process.stderr.write(`error: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
