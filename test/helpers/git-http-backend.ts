/**
 * A plain git server for tests: git's own `git http-backend` (CGI) over Node's http server, serving
 * the bare repositories under a directory, read-only, on a free loopback port. Any path under
 * `/redirect/` answers 302 to the same path without the prefix, to show that a client is never
 * led elsewhere. `hold()` keeps every request waiting until the function it returns is called.
 */
import http from 'node:http';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';

/** A running server: its base URL (`http://127.0.0.1:port/`) and how to stop it. */
export interface GitHttpServer { url: string; requests: string[]; hold(): () => void; close(): Promise<void> }

/** Serve the bare repositories under `root` (`<root>/<name>.git`). */
export async function startGitHttpBackend(root: string): Promise<GitHttpServer> {
  const requests: string[] = [];
  let held: Promise<void> | null = null;
  const srv = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(`${req.method} ${url.pathname}`);
    if (held) await held;
    if (url.pathname.startsWith('/redirect/')) {
      res.writeHead(302, { Location: `${url.pathname.slice('/redirect'.length)}${url.search}` }).end();
      return;
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', GIT_CONFIG_NOSYSTEM: '1', HOME: root,
        REQUEST_METHOD: req.method ?? 'GET', PATH_INFO: decodeURIComponent(url.pathname), QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '', REMOTE_ADDR: '127.0.0.1', GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let started = false;
    cgi.stdout.on('data', (d: Buffer) => {
      if (started) return void res.write(d);
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      started = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const i = line.indexOf(':');
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === 'status') status = Number(v.split(' ')[0]);
        else res.setHeader(k, v);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on('end', () => res.end());
    cgi.on('error', () => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  const hold = () => {
    let release = () => {};
    held = new Promise<void>((resolve) => { release = () => { held = null; resolve(); }; });
    return release;
  };
  return { url: `http://127.0.0.1:${port}/`, requests, hold, close: () => new Promise((resolve) => srv.close(() => resolve())) };
}
