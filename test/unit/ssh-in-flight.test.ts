/** The SSH in-flight bound, against a simulated client and link (virtual time). */
import { expect } from 'chai';
import { FLOOR, InFlightBound } from '../../ssh/in-flight';

const PACKET = 32 * 1024;
const WINDOW = 2 * 1024 * 1024;

interface Link { delayMs: number; ratePerMs: number; step: number; ms: number; producePerMs: number }

/**
 * A server sending whole packets of what git produced (`producePerMs`) as the window and the bound
 * allow, at most 16 packets a write as the worker does, a link of `delayMs` each way,
 * and a client that consumes `ratePerMs` bytes per ms and reopens its window once `step` consumed
 * bytes are unacknowledged. Returns what the client consumed and the most it held once the first
 * window (sent whole, before the client's step is known) was used up.
 */
function simulate(link: Link): { consumed: number; maxHeld: number } {
  let t = 0;
  const bound = new InFlightBound(WINDOW, () => t);
  let window = WINDOW;
  let sent = 0;
  let acked = 0;
  let held = 0;
  let maxHeld = 0;
  let consumed = 0;
  let unacked = 0;
  let produced = 0;
  const toClient: [number, number][] = [];
  const toServer: [number, number][] = [];
  const dt = 0.05;
  for (; t < link.ms; t += dt) {
    while (toServer.length && toServer[0][0] <= t) {
      const [, n] = toServer.shift()!;
      window += n;
      acked += n;
      bound.acknowledged(acked);
    }
    produced += link.producePerMs * dt;
    const allowed = Math.min(window, bound.room(sent - acked), 16 * PACKET, produced - sent);
    const n = Math.floor(allowed / PACKET) * PACKET;
    if (n > 0) {
      sent += n;
      window -= n;
      bound.wrote(n);
      toClient.push([t + link.delayMs, n]);
    }
    while (toClient.length && toClient[0][0] <= t) held += toClient.shift()![1];
    if (consumed > WINDOW) maxHeld = Math.max(maxHeld, held);
    const take = Math.min(held, link.ratePerMs * dt);
    held -= take;
    consumed += take;
    unacked += take;
    if (unacked >= link.step) {
      toServer.push([t + link.delayMs, Math.floor(unacked)]);
      unacked -= Math.floor(unacked);
    }
  }
  return { consumed, maxHeld };
}

describe('SSH in-flight bound', () => {
  it('sends the whole window before the client has reopened it once', () => {
    const bound = new InFlightBound(WINDOW, () => 0);
    expect(bound.room(0)).to.equal(WINDOW);
    expect(bound.room(WINDOW - PACKET)).to.equal(PACKET);
  });

  it('keeps a fast local client supplied while holding little in its buffers', () => {
    const link = { delayMs: 0.05, ratePerMs: 50 * 1024, step: 96 * 1024, ms: 400, producePerMs: 100 * 1024 };
    const { consumed, maxHeld } = simulate(link);
    expect(maxHeld).to.be.at.most(FLOOR + PACKET);
    expect(consumed).to.be.at.least(0.95 * link.ratePerMs * link.ms);
  });

  it('opens up to the whole window on a long link', () => {
    const link = { delayMs: 20, ratePerMs: 200 * 1024, step: 96 * 1024, ms: 2000, producePerMs: 400 * 1024 };
    const { consumed } = simulate(link);
    // The window alone allows WINDOW bytes per round trip; a fixed FLOOR would allow an eighth of it.
    const windowLimited = (WINDOW / (2 * link.delayMs)) * link.ms;
    expect(consumed).to.be.at.least(0.8 * windowLimited);
  });

  it('never stalls a client that reopens its window only once half of it is used', () => {
    const link = { delayMs: 0.05, ratePerMs: 50 * 1024, step: WINDOW / 2, ms: 400, producePerMs: 100 * 1024 };
    const { consumed } = simulate(link);
    expect(consumed).to.be.at.least(0.9 * link.ratePerMs * link.ms);
  });
});
