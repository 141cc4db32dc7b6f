/**
 * Stopping an HTTP server without cutting anyone off: it stops accepting, every exchange in flight
 * finishes, and a keep-alive connection is closed only once its current exchange is done (its
 * answer says `Connection: close`) or after it stayed idle for a moment. A git clone between its
 * two requests (ref advertisement, then the pack) sends the second on the connection it has, so it
 * is served rather than reset.
 */
import http from 'node:http';
import net from 'node:net';

/** How long a connection idle at the stop may still bring its next request. */
const IDLE_GRACE_MS = 2_000;
const SWEEP_MS = 100;

interface Conn { active: number; idleSince: number }

/** A server's connections, tracked from the start so a stop knows which are busy. */
export interface DrainableServer {
  /** Stop accepting and resolve once every connection has closed. */
  drain(): Promise<void>;
}

/** Track `server`'s connections (call before it listens). */
export function drainable(server: http.Server): DrainableServer {
  const conns = new Map<net.Socket, Conn>();
  let draining = false;
  server.on('connection', (socket: net.Socket) => {
    conns.set(socket, { active: 0, idleSince: Date.now() });
    socket.once('close', () => conns.delete(socket));
  });
  // why: prepended, so it runs before the application may answer (and fix the headers) synchronously.
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const c = conns.get(req.socket);
    if (c) c.active++;
    if (draining) res.setHeader('Connection', 'close');
    res.once('close', () => {
      if (!c) return;
      c.active--;
      c.idleSince = Date.now();
      if (draining && c.active === 0) req.socket.end();
    });
  });
  return {
    drain: () => new Promise<void>((resolve) => {
      draining = true;
      // why: http.Server.close would also close idle keep-alive connections at once; only the listener goes here.
      net.Server.prototype.close.call(server);
      const stoppedAt = Date.now();
      const sweep = setInterval(() => {
        const now = Date.now();
        // why: the grace runs from the stop (or from the end of a later exchange), so a clone whose ref advertisement ended just before the stop still gets it whole.
        for (const [socket, c] of conns) if (c.active === 0 && now - Math.max(c.idleSince, stoppedAt) > IDLE_GRACE_MS) socket.destroy();
        if (conns.size === 0) {
          clearInterval(sweep);
          resolve();
        }
      }, SWEEP_MS);
    }),
  };
}
