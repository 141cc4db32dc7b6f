/**
 * What the `forge` commands share: argument parsing, Gitea-style text tables, and telling a running
 * server that a command changed a table behind its back.
 */
import { settings } from '../config';
import { tableWritten } from '../db';

/** Flags by name; a boolean flag given bare is "true". */
export type Flags = Record<string, string>;

/** A refusal of a command: printed as one line, exit status 1 (2 with the usage). */
export class CliError extends Error {
  constructor(message: string, public readonly showUsage = false) {
    super(message);
  }
}

/**
 * Parse `--flag value`, `--flag=value` and bare boolean flags. A flag given more than once keeps
 * every value in `lists` (Gitea's repeatable flags such as `--exclude`); other words are positional.
 */
export function parseArgs(args: string[], booleans: ReadonlySet<string>): { flags: Flags; lists: Record<string, string[]>; positional: string[] } {
  const flags: Flags = {};
  const lists: Record<string, string[]> = {};
  const positional: string[] = [];
  const set = (k: string, v: string) => {
    flags[k] = v;
    (lists[k] ??= []).push(v);
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    if (eq > 0) set(a.slice(2, eq), a.slice(eq + 1));
    else if (!booleans.has(a.slice(2)) && args[i + 1] !== undefined && !args[i + 1].startsWith('--')) set(a.slice(2), args[++i]);
    else set(a.slice(2), 'true');
  }
  return { flags, lists, positional };
}

/** Rows as columns padded to their widest cell plus one space (Gitea prints its lists with Go's tabwriter). */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => { widths[i] = Math.max(widths[i] ?? 5, c.length + 1); });
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('') + '\n').join('');
}

/**
 * Tell this process and a forge running on this machine that `table` changed, so it serves nothing
 * cached from before the command. In a cluster the write already reached every node over Redis;
 * the local call is for the embedded server, and is skipped quietly when none is running.
 */
export async function notifyTableWritten(name: string): Promise<void> {
  await tableWritten(name);
  const s = settings();
  const host = s.server.httpAddr === '0.0.0.0' || s.server.httpAddr === '' ? '127.0.0.1' : s.server.httpAddr;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${s.server.httpPort}/api/internal/cache/table-written`;
  await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${s.security.internalToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ table: name }),
    signal: AbortSignal.timeout(5_000),
  }).catch(() => undefined);
}
