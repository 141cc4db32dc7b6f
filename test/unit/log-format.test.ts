/**
 * The log's pure parts: ACCESS_LOG_TEMPLATE read as Gitea writes it and refused when it asks for
 * more, the access line it renders, the time layouts, [log] LEVEL/MODE/FORMAT, and the writer's
 * bounded queue (lines dropped when full, counted, and reported once it drains).
 */
import { expect } from 'chai';
import {
  ACCESS_TIME_LAYOUTS, ConfigError, GITEA_ACCESS_LOG_TEMPLATE, loadSettings, parseAccessLogTemplate,
} from '../../src/config';
import { compileAccessTemplate, identityOf, type Facts } from '../../src/log/access';
import { KNOWN_LAYOUTS, timeFormatter } from '../../src/log/time';
import { LineWriter, type Sink } from '../../src/log/writer';

/** The zone of a local date as Go's -0700. */
function zone(d: Date, colon = false): string {
  const off = -d.getTimezoneOffset();
  const a = Math.abs(off);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${off < 0 ? '-' : '+'}${two(Math.floor(a / 60))}${colon ? ':' : ''}${two(a % 60)}`;
}

/** A finished request as the access log sees it. */
function facts(over: { principal?: Facts['req']['principal']; headers?: Record<string, string>; url?: string; requestId?: string } = {}): Facts {
  const start = new Date(2006, 0, 2, 15, 4, 5, 7).getTime();
  const req = {
    method: 'GET', originalUrl: over.url ?? '/api/v1/user?x=1', url: '/user', httpVersion: '1.1', ip: '::ffff:10.0.0.7',
    headers: { referer: 'https://example.com/', 'user-agent': 'curl/8.0', host: 'forge.example', ...(over.headers ?? {}) },
    socket: { remoteAddress: '::ffff:10.0.0.7', remotePort: 51234 }, principal: over.principal ?? { user: { name: 'alice' } },
    requestId: over.requestId ?? 'rid-1',
  };
  const res = { statusCode: 200, forgeBodyBytes: 1234 };
  return { req, res, start, ms: 12.34 } as unknown as Facts;
}

const load = (env: Record<string, string>) => loadSettings(null, { FORGE__SERVER__APP_DATA_PATH: '/tmp/forge-log-unit', ...env });

describe('access log template', () => {
  it('renders Gitea\'s default template exactly as Gitea writes it, then the request id and the time taken', () => {
    const line = compileAccessTemplate(GITEA_ACCESS_LOG_TEMPLATE)(facts());
    const d = new Date(2006, 0, 2, 15, 4, 5);
    expect(line).to.equal(`10.0.0.7 - alice [02/Jan/2006:15:04:05 ${zone(d)}] "GET /api/v1/user?x=1 HTTP/1.1" 200 1234 "https://example.com/" "curl/8.0" "rid-1" 12.3ms\n`);
  });

  it('is the default of [log] ACCESS_LOG_TEMPLATE, as Gitea\'s app.example.ini writes it', () => {
    expect(load({}).log.accessLogTemplate).to.equal('{{.Ctx.RemoteHost}} - {{.Identity}} {{.Start.Format "[02/Jan/2006:15:04:05 -0700]" }} '
      + '"{{.Ctx.Req.Method}} {{.Ctx.Req.URL.RequestURI}} {{.Ctx.Req.Proto}}" {{.ResponseWriter.Status}} {{.ResponseWriter.Size}} "{{.Ctx.Req.Referer}}" "{{.Ctx.Req.UserAgent}}"');
  });

  it('renders every placeholder, appends nothing a template placed itself, and honours trim markers', () => {
    const t = '{{.Ctx.RemoteAddr}}|{{.Ctx.Req.URL.Path}}|{{.Ctx.Req.Host}}|{{.RequestID}}|{{.DurationMs}}ms|{{- .Identity -}}  |{{.Start.Format `2006-01-02T15:04:05.000Z07:00`}}';
    const d = new Date(2006, 0, 2, 15, 4, 5);
    expect(compileAccessTemplate(t)(facts())).to.equal(`10.0.0.7:51234|/api/v1/user|forge.example|rid-1|12.3ms|alice|2006-01-02T15:04:05.007${d.getTimezoneOffset() === 0 ? 'Z' : zone(d, true)}\n`);
  });

  it('escapes quotes, backslashes and control characters in values, so no value ends a field or a line', () => {
    const line = compileAccessTemplate(GITEA_ACCESS_LOG_TEMPLATE)(facts({ headers: { 'user-agent': 'a"b\\c\u0001' }, requestId: 'x"y' }));
    expect(line).to.include('"a\\x22b\\x5cc\\x01" "x\\x22y"');
    expect(line.split('\n')).to.have.length(2);
  });

  it('writes no token or signature a query carries', () => {
    const line = compileAccessTemplate('{{.Ctx.Req.URL.RequestURI}}')(facts({ url: '/api/v1/user?token=abc123&page=2&access_token=def&x=token' }));
    expect(line).to.match(/^\/api\/v1\/user\?token=REDACTED&page=2&access_token=REDACTED&x=token /);
    const dl = compileAccessTemplate('{{.Ctx.Req.URL.RequestURI}}')(facts({ url: '/api/v1/repos/o/r/actions/artifacts/1/zip/raw?sig=c2lnbmVk&expires=99' }));
    expect(dl).to.match(/\?sig=REDACTED&expires=99 /);
  });

  it('names a deploy key, and nobody as -', () => {
    expect(identityOf({ deployKey: { id: 4 } })).to.equal('deploy-key/4');
    expect(identityOf({ user: null })).to.equal('-');
    expect(identityOf(undefined)).to.equal('-');
  });

  for (const [template, reason] of [
    ['{{.Ctx.Req.Header}}', '{{.Ctx.Req.Header}} is not supported'],
    ['{{.Ctx.Req.UserAgent | printf "%q"}}', '{{.Ctx.Req.UserAgent | printf "%q"}} is not supported'],
    ['{{if .Identity}}x{{end}}', '{{if .Identity}} is not supported'],
    ['{{.Start.Format "Mon Jan 2 15:04:05 2006"}}', 'the time layout "Mon Jan 2 15:04:05 2006" is not supported'],
    ['{{/* a comment */}}', '{{/* a comment */}} is not supported'],
    ['{{.Identity', 'an unclosed action "{{.Identity" is not supported'],
  ]) {
    it(`refuses ${template} at start-up, naming the key`, () => {
      expect(() => parseAccessLogTemplate(template)).to.throw(ConfigError, `[log] ACCESS_LOG_TEMPLATE: ${reason}`);
      expect(() => load({ FORGE__LOG__ACCESS_LOG_TEMPLATE: template })).to.throw(ConfigError, reason);
    });
  }

  it('formats each time layout a template may name', () => {
    expect([...KNOWN_LAYOUTS].sort()).to.deep.equal([...ACCESS_TIME_LAYOUTS].sort());
    const d = new Date(2006, 0, 2, 15, 4, 5, 7);
    expect(timeFormatter('02/Jan/2006:15:04:05 -0700')(d.getTime())).to.equal(`02/Jan/2006:15:04:05 ${zone(d)}`);
    expect(timeFormatter('2006/01/02 15:04:05')(d.getTime())).to.equal('2006/01/02 15:04:05');
    const rfc = timeFormatter('2006-01-02T15:04:05Z07:00');
    expect(rfc(d.getTime())).to.equal(`2006-01-02T15:04:05${d.getTimezoneOffset() === 0 ? 'Z' : zone(d, true)}`);
    // the text kept for a second is not served for the next one
    expect(rfc(d.getTime() + 1000)).to.include('T15:04:06');
  });
});

describe('[log] settings', () => {
  it('defaults to Info on the console as text, the access log on, files under APP_DATA_PATH/log', () => {
    expect(load({}).log).to.deep.include({ level: 'info', mode: ['console'], rootPath: '/tmp/forge-log-unit/log', enableAccessLog: true, format: 'text', bufferLen: 10000 });
  });

  it('takes Gitea\'s level names in any case, and a relative ROOT_PATH under APP_DATA_PATH', () => {
    const s = load({ FORGE__LOG__LEVEL: 'Critical', FORGE__LOG__MODE: 'file, console', FORGE__LOG__ROOT_PATH: 'logs', FORGE__LOG__FORMAT: 'JSON' });
    expect(s.log).to.deep.include({ level: 'critical', mode: ['file', 'console'], rootPath: '/tmp/forge-log-unit/logs', format: 'json' });
  });

  it('refuses an unknown level, writer or format', () => {
    expect(() => load({ FORGE__LOG__LEVEL: 'verbose' })).to.throw(ConfigError, '[log] LEVEL: "verbose" is not one of trace, debug, info, warn, error, critical, fatal, none');
    expect(() => load({ FORGE__LOG__MODE: 'conn' })).to.throw(ConfigError, '[log] MODE: "conn" is not supported');
    expect(() => load({ FORGE__LOG__FORMAT: 'logfmt' })).to.throw(ConfigError, '[log] FORMAT: "logfmt" is not one of text, json');
  });
});

describe('log writer', () => {
  /** A disk that holds its writes' answers while held, and otherwise answers on the next turn; `fail` makes the next write fail. */
  function slowDisk() {
    const written: string[] = [];
    const pending: (() => void)[] = [];
    let failNext: string | null = null;
    let held = true;
    const answer = (buf: Buffer, cb: (err: NodeJS.ErrnoException | null, n: number) => void) => () => {
      if (failNext) {
        const code = failNext;
        failNext = null;
        return cb(Object.assign(new Error(code), { code }), 0);
      }
      written.push(buf.toString());
      cb(null, buf.length);
    };
    const sink: Sink = {
      write: (buf, cb) => {
        if (held) pending.push(answer(buf, cb));
        else setImmediate(answer(buf, cb));
      },
      writeSync: (buf) => { written.push(buf.toString()); return buf.length; },
      close: () => undefined,
    };
    const release = () => {
      held = false;
      for (const p of pending.splice(0)) setImmediate(p);
    };
    return { sink, written, pending, release, fail: (code: string) => { failNext = code; } };
  }

  it('never waits for the disk: beyond BUFFER_LEN lines it drops and counts them, and says how many once it has drained', async () => {
    const disk = slowDisk();
    const w = new LineWriter(disk.sink, { maxLines: 3, droppedLine: (n) => `dropped ${n}\n` });
    for (let i = 1; i <= 3; i++) w.write(`line ${i}\n`);
    await new Promise((r) => setImmediate(r));
    // the first write is with the disk; the queue takes three more, then drops
    expect(disk.pending).to.have.length(1);
    for (let i = 4; i <= 9; i++) w.write(`line ${i}\n`);
    expect(w.droppedTotal).to.equal(3);
    disk.release();
    await w.drained();
    expect(disk.written.join('')).to.equal('line 1\nline 2\nline 3\nline 4\nline 5\nline 6\ndropped 3\n');
  });

  it('writes an urgent line at once when the output can take it and nothing is queued, else in its turn', async () => {
    const taken: string[] = [];
    let room = Infinity;
    const sink: Sink = {
      write: (buf, cb) => { taken.push(buf.toString()); setImmediate(() => cb(null, buf.length)); },
      writeNow: (buf) => { const n = Math.min(room, buf.length); if (n > 0) taken.push(buf.subarray(0, n).toString()); return n; },
      writeSync: (buf) => buf.length,
      close: () => undefined,
    };
    const w = new LineWriter(sink, { maxLines: 100, droppedLine: (n) => `dropped ${n}\n` });
    w.write('error 1\n', true);
    expect(taken).to.deep.equal(['error 1\n']);
    w.write('info\n');
    w.write('error 2\n', true);
    expect(taken).to.deep.equal(['error 1\n']);
    await w.drained();
    room = 0;
    w.write('error 3\n', true);
    await w.drained();
    room = 3;
    w.write('error 4\n', true);
    w.write('info\n');
    await w.drained();
    expect(taken.join('')).to.equal('error 1\ninfo\nerror 2\nerror 3\nerror 4\ninfo\n');
  });

  it('writes whole lines, at most 4 KiB per write unless one line is longer', async () => {
    const disk = slowDisk();
    const w = new LineWriter(disk.sink, { maxLines: 10_000, droppedLine: (n) => `dropped ${n}\n` });
    const line = `${'x'.repeat(99)}\n`;
    for (let i = 0; i < 100; i++) w.write(line);
    w.write(`${'y'.repeat(5000)}\n`);
    disk.release();
    await w.drained();
    for (const chunk of disk.written) {
      expect(chunk.endsWith('\n')).to.equal(true);
      if (!chunk.startsWith('y')) expect(chunk.length).to.be.at.most(4096);
    }
    expect(disk.written.join('')).to.equal(line.repeat(100) + `${'y'.repeat(5000)}\n`);
  });

  it('counts the lines of a failed write as dropped and reports them after the next write that works; retries a full pipe', async () => {
    const disk = slowDisk();
    const w = new LineWriter(disk.sink, { maxLines: 100, droppedLine: (n) => `dropped ${n}\n` });
    disk.release();
    disk.fail('ENOSPC');
    w.write('a\n');
    w.write('b\n');
    await w.drained();
    expect(disk.written).to.deep.equal([]);
    expect(w.droppedTotal).to.equal(2);
    disk.fail('EAGAIN');
    w.write('c\n');
    await w.drained();
    expect(disk.written.join('')).to.equal('c\ndropped 2\n');
  });
});
