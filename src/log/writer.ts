/**
 * The one way a log line reaches an output: asynchronously, from a bounded queue.
 *
 * why: a log written with synchronous writes (console.log to a file, a terminal, or a pipe whose
 * reader stalls) stops the event loop whenever the output is slow, and every request waits. Here
 * a line is appended to an in-memory queue and the call returns. Whole lines go out batched, at
 * most 4 KiB per write, so each write is atomic on a pipe (PIPE_BUF) and, on a file opened with
 * O_APPEND, never interleaves with another process's lines. When the queue holds BUFFER_LEN lines
 * (or 8 MiB), new lines are dropped and counted, and once the queue has drained one line says how
 * many were lost. A write that fails (a full disk, a closed pipe) loses its lines the same way.
 *
 * The outputs (sinks): a file is written from the thread pool (fs.write), since a write to a file
 * can wait for the disk. stdout and stderr, when they are a pipe or a socket, are Node's own
 * streams, which libuv makes non-blocking: a write is tried at once and, if the pipe is full, kept
 * until it drains; the queue here hands them one chunk at a time, so they never hold more. A
 * terminal is written through a descriptor of its own opened with O_NONBLOCK (Node keeps the
 * inherited one blocking). On a pipe, a socket or a terminal an urgent line (a warning, an error)
 * is written at once when nothing is queued, as console.error did, so the cause of a 500 is in the
 * log before its answer leaves.
 */
import fs from 'node:fs';

/** Bytes of whole lines joined into one write. */
const CHUNK = 4096;
/** Text the queue may hold, whatever BUFFER_LEN says. */
const MAX_QUEUED_CHARS = 8 * 1024 * 1024;

/** Where a writer's bytes go. */
export interface Sink {
  /** Write in the background; `cb` once the bytes are with the kernel, or failed. */
  write(buf: Buffer, cb: (err: NodeJS.ErrnoException | null, written: number) => void): void;
  /** Write at once without ever waiting, answering the bytes taken (0: none, come back later); absent when writing may wait (a file). */
  writeNow?(buf: Buffer): number;
  /** Write synchronously (at exit), answering the bytes written. */
  writeSync(buf: Buffer): number;
  close(): void;
}

/** A file descriptor written from the thread pool. `owned`: close it with the writer. */
export function fdSink(fd: number, owned: boolean): Sink {
  return {
    write: (buf, cb) => fs.write(fd, buf, 0, buf.length, null, cb),
    writeSync: (buf) => fs.writeSync(fd, buf),
    close: () => { if (owned) fs.close(fd, () => undefined); },
  };
}

/** A descriptor opened with O_NONBLOCK (a terminal): written at once when it can take the bytes, else from the thread pool. */
function nonBlockingFdSink(fd: number): Sink {
  return {
    ...fdSink(fd, true),
    writeNow: (buf) => {
      try { return fs.writeSync(fd, buf); } catch { return 0; }
    },
  };
}

/** Node's stream of a pipe or socket (process.stdout/stderr): libuv writes it without blocking. */
function streamSink(stream: NodeJS.WriteStream): Sink {
  // why: a reader that went away (EPIPE) fails the write's callback; the stream's 'error' must not end the process.
  stream.on('error', () => undefined);
  return {
    write: (buf, cb) => { stream.write(buf, (err) => cb((err as NodeJS.ErrnoException | null | undefined) ?? null, err ? 0 : buf.length)); },
    writeNow: (buf) => { stream.write(buf); return buf.length; },
    writeSync: (buf) => { stream.write(buf); return buf.length; },
    close: () => undefined,
  };
}

/**
 * stdout (1) or stderr (2) as a sink: a pipe or socket through Node's stream, a terminal through
 * a non-blocking descriptor of its own (Linux's /proc/self/fd), a file (or anything else) from the
 * thread pool.
 */
export function stdioSink(fd: 1 | 2): Sink {
  try {
    const st = fs.fstatSync(fd);
    if (st.isFIFO() || st.isSocket()) return streamSink(fd === 1 ? process.stdout : process.stderr);
    // why: reopening, not a regular file: that would give it an offset of its own, writing over what is there.
    if (st.isCharacterDevice()) return nonBlockingFdSink(fs.openSync(`/proc/self/fd/${fd}`, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
  } catch { /* not Linux: the descriptor itself */ }
  return fdSink(fd, false);
}

/** Options of a writer. */
export interface LineWriterOptions {
  /** Lines the queue holds at most. */
  maxLines: number;
  /** The line that reports `n` dropped lines (with its newline). */
  droppedLine: (n: number) => string;
}

/** Lines to one output; see the file's comment. */
export class LineWriter {
  /** Lines dropped since the writer started (a full queue or a failed write). */
  droppedTotal = 0;
  private queue: string[] = [];
  private head = 0;
  private chars = 0;
  private busy = false;
  private scheduled = false;
  /** Lines lost since the last report of them. */
  private unreported = 0;
  /** What the write in flight stands for: its lines, or the count a report line carries. */
  private inFlightWeight = 0;
  private waiters: (() => void)[] = [];
  private closed = false;
  /** The rest of a line written in part at once; it goes before the queue. */
  private carry: Buffer | null = null;

  constructor(private readonly sink: Sink, private readonly opts: LineWriterOptions) {}

  /** Append to `file` (created 0640), from the thread pool. */
  static append(file: string, opts: LineWriterOptions): LineWriter {
    return new LineWriter(fdSink(fs.openSync(file, 'a', 0o640), true), opts);
  }

  /** Queue one line (ending in a newline); never blocks, never throws. `urgent`: write it at once if the output can take it now and nothing is queued. */
  write(line: string, urgent = false): void {
    if (urgent && this.sink.writeNow && this.idle() && !this.closed && this.writeNow(line)) return;
    if (this.closed || this.queue.length - this.head >= this.opts.maxLines || this.chars + line.length > MAX_QUEUED_CHARS) {
      this.lost(1);
      return;
    }
    this.queue.push(line);
    this.chars += line.length;
    if (!this.busy && !this.scheduled) {
      this.scheduled = true;
      // why: lines logged in the same turn of the event loop go out in one write.
      setImmediate(() => { this.scheduled = false; if (!this.busy) this.next(); });
    }
  }

  /** Resolves once every queued line has been written (or dropped). */
  drained(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Write what is still queued synchronously (at process exit); the write in flight, if any, is left to finish on its own. */
  flushSync(): void {
    const rest = this.queue.slice(this.head).join('') + (this.unreported > 0 && !this.busy ? this.opts.droppedLine(this.unreported) : '');
    this.queue = [];
    this.head = 0;
    this.chars = 0;
    if (!rest) return;
    let buf = Buffer.from(rest);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let tries = 0; buf.length > 0 && tries < 100; tries++) {
      try {
        buf = buf.subarray(this.sink.writeSync(buf));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return;
        // why: a full output at exit gets a moment (at most 100 ms in all) to take the last lines.
        Atomics.wait(pause, 0, 0, 1);
      }
    }
  }

  /** Stop taking lines and close the output once written (files only). */
  async close(): Promise<void> {
    await this.drained();
    this.closed = true;
    this.sink.close();
  }

  private idle(): boolean {
    return !this.busy && !this.scheduled && this.head === this.queue.length && this.carry === null;
  }

  /** Write `line` at once; false when the output took none of it (so it is queued). */
  private writeNow(line: string): boolean {
    const buf = Buffer.from(line);
    const n = this.sink.writeNow!(buf);
    if (n >= buf.length) return true;
    if (n <= 0) return false;
    // why: the rest of a line must follow its start, before any other line.
    this.carry = buf.subarray(n);
    this.busy = true;
    this.next();
    return true;
  }

  private lost(n: number): void {
    this.unreported += n;
    this.droppedTotal += n;
  }

  /** Start the next write: a carried rest, whole lines up to CHUNK, or nothing (idle). */
  private next(): void {
    if (this.carry) {
      const rest = this.carry;
      this.carry = null;
      this.inFlightWeight = 1;
      this.busy = true;
      this.send(rest, false);
      return;
    }
    let chunk = '';
    let lines = 0;
    while (this.head < this.queue.length) {
      const line = this.queue[this.head];
      if (lines > 0 && chunk.length + line.length > CHUNK) break;
      chunk += line;
      lines++;
      this.head++;
    }
    if (lines > 0) {
      this.chars -= chunk.length;
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
      } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.inFlightWeight = lines;
      this.busy = true;
      this.send(Buffer.from(chunk), false);
      return;
    }
    this.busy = false;
    for (const w of this.waiters.splice(0)) w();
  }

  private send(buf: Buffer, isReport: boolean): void {
    this.sink.write(buf, (err, written) => {
      if (err) {
        if (err.code === 'EAGAIN') {
          // why: a non-blocking output that is full; try again shortly rather than spin.
          setTimeout(() => this.send(buf, isReport), 10).unref();
          return;
        }
        // why: a report weighs the lines it reported, so a failed report loses nothing twice, and an output
        // that keeps failing is sent a report only after a write that worked, not after each failure.
        if (isReport) this.unreported += this.inFlightWeight;
        else this.lost(this.inFlightWeight);
        this.next();
        return;
      }
      if (written < buf.length) {
        this.send(buf.subarray(written), isReport);
        return;
      }
      if (this.head === this.queue.length && this.unreported > 0) {
        this.inFlightWeight = this.unreported;
        this.unreported = 0;
        this.send(Buffer.from(this.opts.droppedLine(this.inFlightWeight)), true);
        return;
      }
      this.next();
    });
  }
}
