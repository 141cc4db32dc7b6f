/**
 * Copies a child's output (git) into an ssh2 ServerChannel in whole SSH packets.
 *
 * why: piping into the channel lets ssh2 send whatever the peer's window allows. A clone's
 * consumer (index-pack) is slower than upload-pack, so the window stays nearly closed and OpenSSH
 * reopens it in small steps (one WINDOW_ADJUST per pipe write to git); ssh2 then sends one small
 * packet per step. A 106 MB clone went out as 6,500-9,500 packets of 11-16 KB instead of ~3,300 of 32 KB,
 * and every packet costs an allocation, padding, encryption, a MAC and a syscall here and a read,
 * poll, decryption and pipe write in the client. Here output waits until the window takes at least
 * one full packet (or all that is queued) and is then written as whole packets, and no more is
 * under way at once than ssh/in-flight.ts allows.
 */
import type { Readable } from 'node:stream';
import type { ServerChannel } from 'ssh2';
import { InFlightBound } from './in-flight';

/** ssh2's flow-control state of a channel (not in its type definitions). */
interface Outgoing { window: number; packetSize: number }

/** Queue at most this many packets before pausing the source (git then blocks on its pipe). */
const QUEUE_PACKETS = 16;

function outgoingOf(channel: ServerChannel): Outgoing | null {
  const out = (channel as unknown as { outgoing?: Partial<Outgoing> }).outgoing;
  return out && typeof out.window === 'number' && typeof out.packetSize === 'number' && out.packetSize > 0 ? out as Outgoing : null;
}

/** A running copy; `flushed(fn)` runs fn once everything read from the source was handed to the channel. */
export interface ChannelWriter {
  flushed(fn: () => void): void;
}

/** Copy `src` into `channel` (without ending it) in whole packets; see the module comment. */
export function writeInPackets(src: Readable, channel: ServerChannel): ChannelWriter {
  const out = outgoingOf(channel);
  if (!out || out.window < out.packetSize) {
    // why: without ssh2's window fields, or with a client whose whole window is smaller than one
    // packet (waiting for a full packet would never end), ssh2's own packet sizes are used.
    src.pipe(channel, { end: false });
    return { flushed: (fn) => fn() };
  }
  const queue: Buffer[] = [];
  let queued = 0;
  let ended = false;
  let stopped = false;
  let paused = false;
  let scheduled: NodeJS.Immediate | null = null;
  let stage: Buffer | undefined;
  const waiters: (() => void)[] = [];
  const clientWindow = out.window;
  const bound = new InFlightBound(clientWindow);
  let sent = 0;

  /** Take `n` queued bytes as one buffer (a reused staging buffer when they span several chunks). */
  const take = (n: number): Buffer => {
    if (queue[0].length === n) return queue.shift() as Buffer;
    if (queue[0].length > n) {
      const head = queue[0];
      queue[0] = head.subarray(n);
      return head.subarray(0, n);
    }
    stage ??= Buffer.allocUnsafe(QUEUE_PACKETS * out.packetSize);
    let off = 0;
    while (off < n) {
      const head = queue[0];
      const k = Math.min(head.length, n - off);
      head.copy(stage, off, 0, k);
      off += k;
      if (k === head.length) queue.shift();
      else queue[0] = head.subarray(k);
    }
    return stage.subarray(0, n);
  };

  const pump = () => {
    scheduled = null;
    if (stopped) return;
    const size = out.packetSize;
    while (queued > 0) {
      const allowed = Math.min(out.window, bound.room(sent - consumed()));
      const room = allowed >= queued ? queued : Math.floor(allowed / size) * size;
      if (room === 0) break;
      const n = Math.min(room, QUEUE_PACKETS * size);
      const piece = take(n);
      queued -= n;
      sent += n;
      bound.wrote(n);
      channel.write(piece);
      // why: ssh2 copies data that fits the window into packets at once; if it kept this write
      // queued instead, the staging buffer now belongs to it and the next copy needs a new one.
      if (channel.writableLength > 0) stage = undefined;
    }
    if (paused && queued < QUEUE_PACKETS * size) {
      paused = false;
      src.resume();
    }
    if (queued === 0 && ended) waiters.splice(0).forEach((fn) => fn());
  };
  const schedule = () => { scheduled ??= setImmediate(pump); };
  /** What the client has taken in all: its window adjustments (its window now, less what it started with, plus what was sent). */
  const consumed = () => window + sent - clientWindow;
  // why: ssh2 has no event for a window the client reopened, it only adds to outgoing.window
  // (polling with a timer instead measured slower: a timer under load fires late and the client's
  // buffer runs dry). Same value and semantics; the setter only also wakes the pump.
  let window = out.window;
  Object.defineProperty(out, 'window', {
    configurable: true,
    enumerable: true,
    get: () => window,
    set: (v: number) => {
      const grew = v > window;
      window = v;
      if (!grew) return;
      bound.acknowledged(consumed());
      if (queued > 0) schedule();
    },
  });

  src.on('data', (chunk: Buffer) => {
    queue.push(chunk);
    queued += chunk.length;
    if (!paused && queued >= QUEUE_PACKETS * out.packetSize) {
      paused = true;
      src.pause();
    }
    schedule();
  });
  // why: 'close' too, because a child that never started destroys its pipes without an 'end'.
  const finish = () => {
    ended = true;
    schedule();
  };
  src.once('end', finish);
  src.once('close', finish);
  channel.once('close', () => {
    stopped = true;
    if (scheduled) clearImmediate(scheduled);
    waiters.splice(0).forEach((fn) => fn());
  });
  return {
    flushed: (fn) => {
      if (stopped || (ended && queued === 0)) fn();
      else waiters.push(fn);
    },
  };
}
