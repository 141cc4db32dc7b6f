/**
 * `forge admin ...`: Gitea's administration commands, run against the configured database (the
 * server may be running). Each prints what Gitea prints, and a refusal is one line on stderr with
 * exit status 1.
 */
import { systemCtx } from '../db';
import { CliError, parseArgs, notifyTableWritten, table, type Flags } from './util';
import { createUser } from '../services/user/user.service';
import { createAccessToken } from '../services/user/token.service';
import { createBadge } from '../services/user/badge.service';
import { findUserForCli, listAllUsers, setMustChangePassword, setPassword } from '../services/user/admin.service';
import { deleteUser } from '../services/lifecycle/user-delete.service';
import { queueAnnouncement } from '../services/mail/account-mail';
import { HttpError } from '../errors';

/** `admin user create`. */
async function userCreate(f: Flags): Promise<void> {
  for (const k of ['username', 'password', 'email']) if (!f[k]) throw new CliError(`missing --${k}`, true);
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
}

/** `admin user list [--admin]`: a table of users, as Gitea's tabwriter prints it. */
async function userList(f: Flags): Promise<void> {
  const users = await listAllUsers(systemCtx);
  if (f.admin === 'true') {
    const rows = users.filter((u) => u.isAdmin).map((u) => [String(u.id), u.name, u.email, String(u.isActive)]);
    process.stdout.write(table([['ID', 'Username', 'Email', 'IsActive'], ...rows]));
    return;
  }
  // why: two-factor enrolment is not built yet, so no user has it.
  const rows = users.map((u) => [String(u.id), u.name, u.email, String(u.isActive), String(u.isAdmin), 'false']);
  process.stdout.write(table([['ID', 'Username', 'Email', 'IsActive', 'IsAdmin', '2FA'], ...rows]));
}

/** `admin user change-password --username U --password P [--must-change-password=false]`. */
async function userChangePassword(f: Flags): Promise<void> {
  if (!f.username) throw new CliError('missing --username', true);
  if (!f.password) throw new CliError('missing --password', true);
  const user = await findUserForCli(systemCtx, { username: f.username });
  // why: Gitea 1.22 and later make the user choose a new password at next sign-in unless told otherwise.
  await setPassword(systemCtx, user, f.password, f['must-change-password'] !== 'false');
  await notifyTableWritten('users');
  process.stdout.write(`${user.name}'s password has been successfully updated!\n`);
}

/** `admin user delete (--id N | --username U | --email E) [--purge]`. */
async function userDelete(f: Flags): Promise<void> {
  if (!f.id && !f.username && !f.email) throw new CliError('You must provide the id, username or email of a user to delete', false);
  const user = await findUserForCli(systemCtx, { id: f.id, username: f.username, email: f.email });
  await deleteUser(systemCtx, null, user, f.purge === 'true');
  await notifyTableWritten('users');
}

/** `admin user generate-access-token --username U [--token-name N] [--scopes S] [--raw]`. */
async function userGenerateToken(f: Flags): Promise<void> {
  if (!f.username) throw new CliError('missing --username', true);
  const user = await findUserForCli(systemCtx, { username: f.username });
  const scopes = (f.scopes ?? 'all').split(',').map((s) => s.trim()).filter(Boolean);
  const tok = await createAccessToken(systemCtx, user, f['token-name'] ?? 'gitea-admin', scopes);
  process.stdout.write(f.raw === 'true' ? `${tok.raw}\n` : `Access token was successfully created: ${tok.raw}\n`);
}

/** `admin user must-change-password [--all] [--exclude U]... [--unset] [usernames...]`. */
async function userMustChangePassword(f: Flags, names: string[], exclude: string[]): Promise<void> {
  const all = f.all === 'true';
  if (!all && names.length === 0) throw new CliError('either usernames or --all must be provided', false);
  const value = f.unset !== 'true';
  const n = await setMustChangePassword(systemCtx, { all, names, exclude }, value);
  await notifyTableWritten('users');
  process.stdout.write(`Updated ${n} users setting MustChangePassword to ${value}\n`);
}

/** `admin badge create --slug S [--description D] [--image-url U]`. */
async function badgeCreate(f: Flags): Promise<void> {
  if (!f.slug) throw new CliError('missing --slug', true);
  const badge = await createBadge(systemCtx, { slug: f.slug, description: f.description ?? '', imageUrl: f['image-url'] ?? '' });
  process.stdout.write(`New badge '${badge.slug}' has been successfully created!\n`);
}

/** One answer from the terminal, lower-cased. */
async function ask(question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(question)).trim().toLowerCase();
  } finally {
    rl.close();
  }
}

/**
 * `admin sendmail --title T [--content C] [--to a,b] [--force]`: mail every active user (or the
 * users named by --to, by name or address), as Gitea's command, asking first unless --force.
 */
async function sendMail(f: Flags): Promise<void> {
  if (!f.title?.trim()) throw new CliError('title is not set', true);
  if (f.force !== 'true') {
    if (!f.content) process.stdout.write('warning: Content is empty\n');
    const answer = await ask('Proceed with sending email? [Y/n] ');
    if (answer === 'n' || answer === 'no') {
      process.stdout.write('The mail was not sent\n');
      return;
    }
    if (answer !== 'y' && answer !== 'yes') throw new CliError(`please answer yes or no, not "${answer}"`, false);
  }
  const to = (f.to ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  try {
    const n = await queueAnnouncement(systemCtx, f.title, f.content ?? '', to);
    process.stdout.write(`Sent ${n} email(s) to ${to.length ? 'the users named' : 'all users'}\n`);
  } catch (err) {
    if (err instanceof HttpError) throw new CliError(err.message, false);
    throw err;
  }
}

/** Run `forge admin <args>`; the database is open. */
export async function runAdmin(args: string[]): Promise<void> {
  if (args[0] === 'sendmail') return sendMail(parseArgs(args.slice(1).map((a) => (a === '-f' ? '--force' : a)), BOOLEAN_FLAGS).flags);
  const [area, verb, ...rest] = args;
  const { flags: f, lists, positional } = parseArgs(rest, BOOLEAN_FLAGS);
  switch (`${area} ${verb}`) {
    case 'user create': return userCreate(f);
    case 'user list': return userList(f);
    case 'user change-password': return userChangePassword(f);
    case 'user delete': return userDelete(f);
    case 'user generate-access-token': return userGenerateToken(f);
    case 'user must-change-password': return userMustChangePassword(f, positional, lists.exclude ?? []);
    case 'badge create': return badgeCreate(f);
    default: throw new CliError(`unknown admin command: ${args.join(' ')}`, true);
  }
}

/** Flags that take no value, so a word after them is a positional argument. */
const BOOLEAN_FLAGS = new Set(['admin', 'all', 'unset', 'purge', 'raw', 'restricted', 'access-token', 'must-change-password', 'force']);

