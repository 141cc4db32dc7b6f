/**
 * How many bytes of a channel's output may be on their way to the client at once, learnt from the
 * client's window adjustments.
 *
 * why: OpenSSH reopens a session channel's window (2 MB) only after it has written the data out
 * (to git), so whatever the window allows beyond what the network holds waits in the ssh client's
 * own buffers. On a fast link with a slower consumer (index-pack) that is the whole window, and the
 * client pays for it: its buffers grow, are compacted and released again, and every reopened page
 * is faulted in. Measured on a 100 MB clone over loopback, keeping at most 256 KB under way cut the
 * ssh client's CPU by a third and the worker's by a fifth, without slowing the clone.
 * A fixed bound would starve a distant client, whose link itself holds rate x round trip, so the
 * bound follows that product: the fastest rate the client consumed at (a recent maximum) times the
 * shortest delay seen between sending a byte and the window adjustment that acknowledges it (the
 * round trip plus the client's quickest turnaround), doubled, and never below FLOOR nor above the
 * client's whole window. A bound that limits the rate lets the rate grow, which raises the bound,
 * so on a long link it opens up to the whole window within a few round trips, as TCP's slow start does.
 * Clients reopen their window in steps of their own choosing (OpenSSH about 100 KB; others only
 * once half the window is used): no bound applies before the first step is seen, and the bound is
 * never below twice the largest step, so a client always has enough in hand to send its next one.
 */

/** The smallest bound: enough to keep a local consumer busy between two wake-ups of the worker. */
export const FLOOR = 256 * 1024;
/** Rate samples are taken over at least this long. */
const RATE_INTERVAL_MS = 50;
/** Each rate sample lowers the remembered maximum by this factor before comparing. */
const RATE_DECAY = 0.75;

/** The in-flight bound of one channel; `now` is injectable for tests (milliseconds). */
export class InFlightBound {
  private sent = 0;
  /** [offset just past a write, the time of that write], oldest first. */
  private readonly writes: [number, number][] = [];
  private head = 0;
  private minDelay = Infinity;
  private rateMax = 0;
  private rateFrom: [number, number] | null = null;
  private lastConsumed = 0;
  private maxStep = 0;

  /** @param window the client's whole window (its initial window size) */
  constructor(private readonly window: number, private readonly now: () => number = () => performance.now()) {}

  /** Bytes that may be sent now, given that `inFlight` are unacknowledged. */
  room(inFlight: number): number {
    const bdp = 2 * this.rateMax * this.minDelay;
    const bound = this.maxStep === 0 ? this.window : Math.min(this.window, Math.max(FLOOR, 2 * this.maxStep, Number.isFinite(bdp) ? bdp : 0));
    return Math.max(0, bound - inFlight);
  }

  /** Record `n` bytes handed to the channel. */
  wrote(n: number): void {
    this.sent += n;
    this.writes.push([this.sent, this.now()]);
  }

  /** The client has consumed `consumed` bytes in all (its adjustments so far). */
  acknowledged(consumed: number): void {
    const t = this.now();
    this.maxStep = Math.max(this.maxStep, consumed - this.lastConsumed);
    this.lastConsumed = consumed;
    let last: number | null = null;
    while (this.head < this.writes.length && this.writes[this.head][0] <= consumed) last = this.writes[this.head++][1];
    if (this.head > 1024) {
      this.writes.splice(0, this.head);
      this.head = 0;
    }
    if (last !== null) this.minDelay = Math.min(this.minDelay, Math.max(t - last, 0.01));
    if (!this.rateFrom) {
      this.rateFrom = [consumed, t];
      return;
    }
    const dt = t - this.rateFrom[1];
    if (dt < RATE_INTERVAL_MS) return;
    const rate = (consumed - this.rateFrom[0]) / dt;
    this.rateMax = Math.max(rate, this.rateMax * RATE_DECAY);
    this.rateFrom = [consumed, t];
  }
}
