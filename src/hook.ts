/**
 * The program behind the server-owned hooks (`node hook.js pre-receive|post-receive`), run by git
 * inside receive-pack. It forwards the ref updates read from stdin to this node's internal API and
 * prints the server's answer. pre-receive fails closed: if the server cannot be reached or says no,
 * the push is refused. Kept free of the server's modules so it starts fast.
 */
import { readFileSync } from 'node:fs';

/** One `<old> <new> <ref>` line of hook input. */
interface RefUpdate { old: string; new: string; ref: string }

function parseUpdates(input: string): RefUpdate[] {
  return input.split('\n').filter(Boolean).map((line) => {
    const [oldId, newId, ref] = line.split(' ');
    return { old: oldId, new: newId, ref };
  });
}

// why: objects of a push still in quarantine are only visible with these; the server checks they lie inside the repository.
const GIT_OBJECT_ENV = ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH'];

async function main(kind: string): Promise<number> {
  const env = process.env;
  if (kind !== 'pre-receive' && kind !== 'post-receive') {
    process.stderr.write(`forge: unknown hook ${kind}\n`);
    return 1;
  }
  const updates = parseUpdates(readFileSync(0, 'utf8'));
  const body = {
    repo_id: Number(env.FORGE_REPO_ID),
    pusher_id: Number(env.FORGE_PUSHER_ID),
    deploy_key_id: Number(env.FORGE_DEPLOY_KEY_ID),
    transport: env.FORGE_PUSH_TRANSPORT ?? '',
    repo_kind: env.FORGE_REPO_KIND ?? 'code',
    updates,
    git_env: Object.fromEntries(GIT_OBJECT_ENV.filter((k) => env[k]).map((k) => [k, env[k]])),
  };
  try {
    const res = await fetch(new URL(`api/internal/hook/${kind}`, env.FORGE_INTERNAL_URL), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${env.FORGE_INTERNAL_TOKEN}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    const answer = (await res.json().catch(() => ({}))) as { message?: string };
    if (answer.message) process.stderr.write(`${answer.message.trimEnd()}\n`);
    return res.ok ? 0 : 1;
  } catch (err) {
    process.stderr.write(`forge: the server could not be reached to ${kind === 'pre-receive' ? 'check' : 'record'} this push: ${(err as Error).message}\n`);
    return 1;
  }
}

void main(process.argv[2] ?? '').then((code) => process.exit(code));
