/**
 * The program behind the server-owned hooks (`node hook.js pre-receive|post-receive|proc-receive`),
 * run by git inside receive-pack. It forwards the ref updates read from stdin to this node's
 * internal API and prints the server's answer. pre-receive fails closed: if the server cannot be
 * reached or says no, the push is refused. proc-receive speaks git's pkt-line protocol for the
 * `refs/for/*` updates of an AGit push and reports, per ref, the pull request ref the server
 * moved. Kept free of the server's modules so it starts fast.
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

/** The hook's request body: who pushes where, the updates and the quarantine's object directories. */
function requestBody(updates: RefUpdate[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const env = process.env;
  return {
    repo_id: Number(env.FORGE_REPO_ID),
    pusher_id: Number(env.FORGE_PUSHER_ID),
    deploy_key_id: Number(env.FORGE_DEPLOY_KEY_ID),
    transport: env.FORGE_PUSH_TRANSPORT ?? '',
    repo_kind: env.FORGE_REPO_KIND ?? 'code',
    updates,
    git_env: Object.fromEntries(GIT_OBJECT_ENV.filter((k) => env[k]).map((k) => [k, env[k]])),
    ...extra,
  };
}

/** POST to the internal API; the answer's status and JSON body. */
async function callServer(kind: string, body: Record<string, unknown>): Promise<{ ok: boolean; answer: Record<string, unknown> }> {
  const env = process.env;
  const res = await fetch(new URL(`api/internal/hook/${kind}`, env.FORGE_INTERNAL_URL), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env.FORGE_INTERNAL_TOKEN}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  return { ok: res.ok, answer: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

/** git's pkt-line framing on stdin and stdout (a null packet is a flush). */
class PktLines {
  private buf = Buffer.alloc(0);
  private readonly chunks = process.stdin[Symbol.asyncIterator]();

  private async need(n: number): Promise<void> {
    while (this.buf.length < n) {
      const r = await this.chunks.next();
      if (r.done) throw new Error('git closed the proc-receive protocol early');
      this.buf = Buffer.concat([this.buf, r.value as Buffer]);
    }
  }

  /** The next packet without its trailing newline, or null for a flush. */
  async read(): Promise<string | null> {
    await this.need(4);
    const len = parseInt(this.buf.subarray(0, 4).toString(), 16);
    if (!Number.isInteger(len) || (len > 0 && len < 4)) throw new Error('bad pkt-line from git');
    if (len === 0) {
      this.buf = this.buf.subarray(4);
      return null;
    }
    await this.need(len);
    const text = this.buf.subarray(4, len).toString('utf8');
    this.buf = this.buf.subarray(len);
    return text.replace(/\n$/, '');
  }

  /** Packets up to the next flush. */
  async readAll(): Promise<string[]> {
    const out: string[] = [];
    for (let line = await this.read(); line !== null; line = await this.read()) out.push(line);
    return out;
  }

  write(lines: string[]): void {
    const parts = lines.map((l) => {
      const data = Buffer.from(`${l}\n`);
      return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0')), data]);
    });
    process.stdout.write(Buffer.concat([...parts, Buffer.from('0000')]));
  }
}

/** One ref's outcome as the server reports it. */
interface ProcResult { ref: string; ok: boolean; reason?: string; refname?: string; old?: string; new?: string; forced?: boolean }

/** proc-receive: negotiate, read the commands and push options, let the server act, report each ref. */
async function procReceive(): Promise<number> {
  const io = new PktLines();
  const hello = await io.readAll();
  if (!hello[0]?.startsWith('version=1')) throw new Error(`unsupported proc-receive protocol: ${hello[0] ?? ''}`);
  io.write(['version=1\0push-options']);
  const updates = parseUpdates((await io.readAll()).join('\n'));
  const options = await io.readAll();
  let results: ProcResult[];
  try {
    const { answer } = await callServer('proc-receive', requestBody(updates, { options }));
    results = Array.isArray(answer.results) ? (answer.results as ProcResult[]) : [];
    if (typeof answer.message === 'string') process.stderr.write(`${answer.message.trimEnd()}\n`);
  } catch (err) {
    results = [];
    process.stderr.write(`forge: the server could not be reached to take this push: ${(err as Error).message}\n`);
  }
  const lines: string[] = [];
  for (const u of updates) {
    const r = results.find((x) => x.ref === u.ref);
    if (!r || !r.ok) {
      lines.push(`ng ${u.ref} ${(r?.reason ?? 'the server did not take this ref').replace(/\n/g, ' ')}`);
      continue;
    }
    lines.push(`ok ${u.ref}`, `option refname ${r.refname}`, `option old-oid ${r.old}`, `option new-oid ${r.new}`);
    if (r.forced) lines.push('option forced-update');
  }
  io.write(lines);
  return 0;
}

async function main(kind: string): Promise<number> {
  if (kind === 'proc-receive') return procReceive();
  if (kind !== 'pre-receive' && kind !== 'post-receive') {
    process.stderr.write(`forge: unknown hook ${kind}\n`);
    return 1;
  }
  const updates = parseUpdates(readFileSync(0, 'utf8'));
  try {
    const { ok, answer } = await callServer(kind, requestBody(updates));
    if (typeof answer.message === 'string' && answer.message) process.stderr.write(`${answer.message.trimEnd()}\n`);
    return ok ? 0 : 1;
  } catch (err) {
    process.stderr.write(`forge: the server could not be reached to ${kind === 'pre-receive' ? 'check' : 'record'} this push: ${(err as Error).message}\n`);
    return 1;
  }
}

void main(process.argv[2] ?? '').then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`forge: ${(err as Error).message}\n`);
  process.exit(1);
});
