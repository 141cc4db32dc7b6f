/**
 * An HTTPS reverse proxy in front of a test server, as an administrator puts one before the forge:
 * a self-signed certificate for 127.0.0.1 made with openssl (its PEM file is what clients are told
 * to trust), every request passed through with its headers and body.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';

/** A running proxy: its base URL, the certificate file to trust, and how to stop it. */
export interface TlsProxy { url: string; certFile: string; close(): Promise<void> }

/** Serve `target` (an http:// base URL) over HTTPS on a free loopback port. */
export async function startTlsProxy(target: string): Promise<TlsProxy> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-tls-'));
  const key = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', certFile], { stdio: 'ignore' });
  const to = new URL(target);
  const srv = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(certFile) }, (req, res) => {
    const upstream = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/`, certFile,
    close: () => new Promise((resolve) => srv.close(() => { fs.rmSync(dir, { recursive: true, force: true }); resolve(); })),
  };
}
