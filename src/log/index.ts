/**
 * The forge's log ([log] in app.ini, see docs/logging.md): leveled lines for operators, and the
 * outputs the access log (access.ts) writes to. Every output is a LineWriter: a line is queued and
 * written asynchronously, so a slow disk or pipe never holds up a request.
 *
 *   console: Trace..Info to stdout, Warn..Fatal to stderr; access lines to stdout
 *   file:    everything to ROOT_PATH/forge.log; access lines to ROOT_PATH/access.log
 *
 * Each process (the primary and every worker) opens its own outputs; files are opened for
 * appending, and a write holds whole lines, so the processes' lines never cut into each other.
 */
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import { LOG_LEVELS, StartupError, type LogLevel, type Settings } from '../config';
import { timeFormatter } from './time';
import { LineWriter, stdioSink } from './writer';

const rank = (level: LogLevel): number => LOG_LEVELS.indexOf(level);
const INFO = rank('info');
const WARN = rank('warn');
const NONE = rank('none');
const TAGS = ['T', 'D', 'I', 'W', 'E', 'C', 'F'];

/** The outputs of this process. */
interface Outputs {
  /** Lines below Warn. */
  out: LineWriter[];
  /** Warn and above. */
  err: LineWriter[];
  /** Access and git operation lines; empty when they are off. */
  access: LineWriter[];
  /** Where start, ready and stop lines also go when no output is the console. */
  notice: LineWriter[];
  all: LineWriter[];
}

let minRank = INFO;
let json = false;
let outputs: Outputs | null = null;
const lineTime = timeFormatter('2006/01/02 15:04:05');

/** A line that reports lines lost by an output, in the log's format. */
function droppedLine(n: number): string {
  const msg = `log: ${n} line${n === 1 ? '' : 's'} dropped: the output was slower than the lines logged`;
  return json ? `${JSON.stringify({ time: new Date().toISOString(), level: 'warn', pid: process.pid, msg, dropped: n })}\n` : `${lineTime(Date.now())} [W] ${msg}\n`;
}

/** The console: stdout and stderr as LineWriters (one each per process, shared by every use). */
function consoleWriters(maxLines: number): { stdout: LineWriter; stderr: LineWriter } {
  return { stdout: new LineWriter(stdioSink(1), { maxLines, droppedLine }), stderr: new LineWriter(stdioSink(2), { maxLines, droppedLine }) };
}

/** Before startLogging (the CLI, tests): the console at Info, as text. */
function current(): Outputs {
  if (!outputs) {
    const c = consoleWriters(10_000);
    outputs = { out: [c.stdout], err: [c.stderr], access: [], notice: [], all: [c.stdout, c.stderr] };
  }
  return outputs;
}

/**
 * Open this process's outputs as [log] says. `access`: whether this process serves requests (a
 * worker), so opens access.log. Throws StartupError when ROOT_PATH cannot be written.
 */
export function startLogging(s: Settings, opts: { access: boolean }): void {
  const cfg = s.log;
  minRank = rank(cfg.level);
  json = cfg.format === 'json';
  const maxLines = cfg.bufferLen;
  const o: Outputs = { out: [], err: [], access: [], notice: [], all: [] };
  const accessOn = opts.access && cfg.enableAccessLog && minRank <= INFO;
  const tty = cfg.mode.includes('console') ? consoleWriters(maxLines) : null;
  if (tty) {
    o.out.push(tty.stdout);
    o.err.push(tty.stderr);
    if (accessOn) o.access.push(tty.stdout);
    o.all.push(tty.stdout, tty.stderr);
  }
  if (cfg.mode.includes('file')) {
    const open = (name: string): LineWriter => {
      const file = path.join(cfg.rootPath, name);
      try {
        fs.mkdirSync(cfg.rootPath, { recursive: true });
        return LineWriter.append(file, { maxLines, droppedLine });
      } catch (err) {
        throw new StartupError(`cannot open the log file ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): `
          + 'make [log] ROOT_PATH a directory this process can write, or use [log] MODE = console');
      }
    };
    const main = open('forge.log');
    o.out.push(main);
    o.err.push(main);
    o.all.push(main);
    if (accessOn) {
      const access = open('access.log');
      o.access.push(access);
      o.all.push(access);
    }
    // why: supervisors and scripts wait for the ready line on the console, wherever the log goes.
    if (!tty) {
      const stdout = new LineWriter(stdioSink(1), { maxLines, droppedLine });
      o.notice.push(stdout);
      o.all.push(stdout);
    }
  }
  outputs = o;
  process.once('exit', () => { for (const w of o.all) w.flushSync(); });
}

/** Resolves once every output has written its queue, or after `timeoutMs`. */
export function flushLogs(timeoutMs = 2000): Promise<void> {
  const all = outputs?.all ?? [];
  return Promise.race([
    Promise.all(all.map((w) => w.drained())).then(() => undefined),
    new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
  ]);
}

function emit(level: number, args: unknown[], notice = false): void {
  if (level < minRank && !(notice && minRank < NONE)) return;
  const o = current();
  const msg = util.format(...args);
  const now = Date.now();
  const line = json
    ? `${JSON.stringify({ time: new Date(now).toISOString(), level: LOG_LEVELS[level], pid: process.pid, msg })}\n`
    : `${lineTime(now)} [${TAGS[level]}] ${msg}\n`;
  // why: a warning or an error is written at once when its output is an idle pipe, socket or terminal (see writer.ts).
  for (const w of level >= WARN ? o.err : o.out) w.write(line, level >= WARN);
  if (notice) for (const w of o.notice) w.write(line);
}

/** Leveled log lines; arguments are formatted as console.log does (an Error with its stack). */
export const log = {
  trace: (...args: unknown[]): void => emit(0, args),
  debug: (...args: unknown[]): void => emit(1, args),
  info: (...args: unknown[]): void => emit(2, args),
  warn: (...args: unknown[]): void => emit(3, args),
  error: (...args: unknown[]): void => emit(4, args),
  critical: (...args: unknown[]): void => emit(5, args),
  fatal: (...args: unknown[]): void => emit(6, args),
  /**
   * An Info line that every LEVEL but None writes: the forge starting, ready, stopping. why: an
   * operator (and a supervisor waiting for readiness) needs these whatever else is filtered, as
   * PostgreSQL's LOG lines; in file mode they also go to stdout.
   */
  notice: (...args: unknown[]): void => emit(2, args, true),
};

/** Whether access and git operation lines are written; none of their work is done otherwise. */
export function accessLogOn(): boolean {
  return current().access.length > 0;
}

/** Write one access or git operation line (built by access.ts, with its newline). */
export function writeAccessLine(line: string): void {
  for (const w of current().access) w.write(line);
}

/** Whether access lines are JSON. */
export function jsonLines(): boolean {
  return json;
}
