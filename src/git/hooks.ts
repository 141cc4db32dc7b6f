/**
 * Server-owned repository hooks. The scripts are static and hold no paths or secrets: the server
 * passes the hook program and how to reach its internal API in the environment of each
 * receive-pack it starts (src/services/git-serve/git-serve.ts). A push that does not come through the
 * server has none of it, and the hooks refuse it. post-receive starts no program of ours: it
 * hands git's list of updated refs to the server through the file FORGE_PUSH_FILE names, which
 * the server records once receive-pack exits, and prints what pre-receive left beside that file.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** One `<old> <new> <ref>` line of hook input: a ref git is about to move, or moved. */
export interface RefUpdate { old: string; new: string; ref: string }

/** The ref updates of a hook's input (one `<old> <new> <ref>` line each). */
export function parseRefUpdates(input: string): RefUpdate[] {
  return input.split('\n').filter(Boolean).map((line) => {
    const [oldId, newId, ref] = line.split(' ');
    return { old: oldId, new: newId, ref };
  });
}

/** The hooks every repository gets. */
export const HOOK_NAMES = ['pre-receive', 'post-receive', 'proc-receive'] as const;

function script(name: string): string {
  if (name === 'post-receive') {
    // why: no guard needed: pre-receive refused a push that did not come through the server before any ref moved.
    // why: pre-receive left what to print once the refs moved (pull request links) beside the push file.
    return [
      '#!/bin/sh', '# Installed by the forge; the server rewrites this file, do not edit.', 'cat > "${FORGE_PUSH_FILE:-/dev/null}"',
      'if [ -n "$FORGE_PUSH_FILE" ] && [ -f "$FORGE_PUSH_FILE.after" ]; then cat "$FORGE_PUSH_FILE.after" >&2; fi', 'exit 0', '',
    ].join('\n');
  }
  return [
    '#!/bin/sh',
    '# Installed by the forge; the server rewrites this file, do not edit.',
    'if [ -z "$FORGE_HOOK_NODE" ] || [ -z "$FORGE_HOOK_SCRIPT" ]; then',
    '  echo "forge: pushes must go through the forge server" >&2',
    '  exit 1',
    'fi',
    `exec "$FORGE_HOOK_NODE" "$FORGE_HOOK_SCRIPT" ${name}`,
    '',
  ].join('\n');
}

/** Write the hook scripts into `<gitDir>/hooks` (replacing whatever is there). */
export async function installHooks(gitDir: string): Promise<void> {
  const dir = path.join(gitDir, 'hooks');
  await fs.mkdir(dir, { recursive: true });
  for (const name of HOOK_NAMES) {
    const file = path.join(dir, name);
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, script(name), { mode: 0o755 });
    await fs.rename(tmp, file);
  }
}

/** The hooks of `<gitDir>/hooks` that are missing, not executable or not what installHooks writes. */
export async function alteredHooks(gitDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of HOOK_NAMES) {
    const file = path.join(gitDir, 'hooks', name);
    const [text, stat] = await Promise.all([fs.readFile(file, 'utf8').catch(() => null), fs.stat(file).catch(() => null)]);
    if (text !== script(name) || !stat || (stat.mode & 0o111) !== 0o111) out.push(name);
  }
  return out;
}
