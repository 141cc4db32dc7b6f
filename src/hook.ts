/**
 * The program behind the server-owned hooks (`node hook.js pre-receive|proc-receive`), run by git
 * inside receive-pack. It forwards the ref updates read from stdin to this node's internal API and
 * prints the server's answer. pre-receive fails closed: if the server cannot be reached or says
 * no, the push is refused. proc-receive speaks git's pkt-line protocol for the `refs/for/*`
 * updates of an AGit push and reports, per ref, the pull request ref the server moved. Kept free
 * of the server's modules (but the hook scripts' own few lines) so it starts fast.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { parseRefUpdates, type RefUpdate } from './git/hooks';

// why: objects of a push still in quarantine are only visible with these; the server checks they lie inside the repository.
const GIT_OBJECT_ENV = ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH'];

/** The hook's request body: who pushes where, the updates and the quarantine's object directories. */
function requestBody(updates: RefUpdate[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const env = process.env;
  return {
    repo_id: Number(env.FORGE_REPO_ID),
    pusher_id: Number(env.FORGE_PUSHER_ID),
    deploy_key_id: Number(env.FORGE_DEPLOY_KEY_ID),
    actions_task_id: Number(env.FORGE_ACTIONS_TASK_ID ?? '0'),
    transport: env.FORGE_PUSH_TRANSPORT ?? '',
    repo_kind: env.FORGE_REPO_KIND ?? 'code',
    updates,
    git_env: Object.fromEntries(GIT_OBJECT_ENV.filter((k) => env[k]).map((k) => [k, env[k]])),
    ...extra,
  };
}

/**
 * POST to the internal API; the answer's status and JSON body.
 * why: node:http, not fetch, which costs this short-lived process a third more start-up CPU.
 */
async function callServer(kind: string, body: Record<string, unknown>): Promise<{ ok: boolean; answer: Record<string, unknown> }> {
  const env = process.env;
  const url = new URL(`api/internal/hook/${kind}`, env.FORGE_INTERNAL_URL);
  // why: LOCAL_ROOT_URL may name an https address; the module is loaded only then.
  const client = url.protocol === 'https:' ? await import('node:https') : http;
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': data.length, authorization: `Bearer ${env.FORGE_INTERNAL_TOKEN}` },
      timeout: 120_000,
    }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', reject);
      res.on('end', () => {
        let answer: Record<string, unknown> = {};
        try { answer = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>; } catch { /* not JSON */ }
        const status = res.statusCode ?? 500;
        resolve({ ok: status >= 200 && status < 300, answer });
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 120 s')));
    req.on('error', reject);
    req.end(data);
  });
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
  const updates = parseRefUpdates((await io.readAll()).join('\n'));
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
  if (kind !== 'pre-receive') {
    process.stderr.write(`forge: unknown hook ${kind}\n`);
    return 1;
  }
  const updates = parseRefUpdates(readFileSync(0, 'utf8'));
  try {
    const { ok, answer } = await callServer(kind, requestBody(updates));
    if (typeof answer.message === 'string' && answer.message) process.stderr.write(`${answer.message.trimEnd()}\n`);
    // why: what the server says of an accepted push (its pull requests) is printed by post-receive, once git moved the refs.
    const file = process.env.FORGE_PUSH_FILE;
    if (ok && file && typeof answer.after === 'string' && answer.after) writeFileSync(`${file}.after`, `${answer.after}\n`);
    return ok ? 0 : 1;
  } catch (err) {
    process.stderr.write(`forge: the server could not be reached to check this push: ${(err as Error).message}\n`);
    return 1;
  }
}

void main(process.argv[2] ?? '').then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`forge: ${(err as Error).message}\n`);
  process.exit(1);
});
