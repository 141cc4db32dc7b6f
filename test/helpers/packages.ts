/**
 * Package files for registry tests, made with the tools a packager uses: a Go module zip as
 * `zip -r -D` makes it, an R source package tarball (tar -czf of `{name}/DESCRIPTION`), without
 * needing go or R, a `.deb` by dpkg-deb, an `.rpm` by rpmbuild, an `.apk` laid out as abuild does;
 * apt in a private root; and what registry tests ask of the server.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import type { TestServer } from './server';
import { count } from './db';

const run = promisify(execFile);

/** A module zip of `{module}@{version}/` with go.mod and one Go file whose Hello() answers `body`; `pad` random bytes in another file make it larger. */
export async function goModuleZip(tmp: string, module: string, version: string, body: string, pad = 0): Promise<Buffer> {
  const root = fs.mkdtempSync(path.join(tmp, 'mod-'));
  const dir = path.join(root, `${module}@${version}`);
  fs.mkdirSync(dir, { recursive: true });
  const pkgName = path.basename(module.replace(/\/v\d+$/, ''));
  fs.writeFileSync(path.join(dir, 'go.mod'), `module ${module}\n\ngo 1.19\n`);
  fs.writeFileSync(path.join(dir, `${pkgName}.go`), `package ${pkgName}\n\nfunc Hello() string { return ${JSON.stringify(body)} }\n`);
  if (pad) fs.writeFileSync(path.join(dir, 'PAD.txt'), crypto.randomBytes(pad));
  await run('zip', ['-q', '-r', '-D', '-0', path.join(root, 'm.zip'), `${module}@${version}`], { cwd: root });
  return fs.readFileSync(path.join(root, 'm.zip'));
}

/** An R source package tarball of `{name}/DESCRIPTION` (and `pad` random bytes in another file). */
export async function cranTarball(tmp: string, name: string, version: string, pad = 0): Promise<Buffer> {
  const root = fs.mkdtempSync(path.join(tmp, 'cran-'));
  fs.mkdirSync(path.join(root, name));
  fs.writeFileSync(path.join(root, name, 'DESCRIPTION'), `Package: ${name}\nVersion: ${version}\nTitle: Test\nLicense: MIT\n`);
  if (pad) fs.writeFileSync(path.join(root, name, 'PAD'), crypto.randomBytes(pad));
  await run('tar', ['-czf', 'p.tar.gz', name], { cwd: root });
  return fs.readFileSync(path.join(root, 'p.tar.gz'));
}

/** Basic credentials of a test user, with its token (or another secret) as the password. */
export function basicAuth(u: { name: string; token: string }, secret = u.token): string {
  return `Basic ${Buffer.from(`${u.name}:${secret}`).toString('base64')}`;
}

/** How many package, version, file and blob rows the server has (a refusal must leave it as it was). */
export function packageRows(server: TestServer): Promise<number> {
  return count(server, 'SELECT (SELECT COUNT(*) FROM package) + (SELECT COUNT(*) FROM package_version) + (SELECT COUNT(*) FROM package_file) + (SELECT COUNT(*) FROM package_blob) AS n');
}

/** The uploads still in the server's temporary directory (a finished upload leaves none). */
export function packageTempFiles(server: TestServer): string[] {
  const dir = path.join(server.dataDir, 'packages', 'tmp');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

/**
 * `dpkg-deb --build` of a package whose DEBIAN/control is `control`, holding one small file; its
 * control member compressed with `z`; `unchecked`: without dpkg-deb's own checks of the fields.
 */
export function debPackage(tmp: string, control: string, z = 'gzip', unchecked = false): string {
  const root = fs.mkdtempSync(path.join(tmp, 'deb-'));
  fs.mkdirSync(path.join(root, 'DEBIAN'));
  fs.writeFileSync(path.join(root, 'DEBIAN', 'control'), control);
  fs.mkdirSync(path.join(root, 'usr', 'share', 'hello'), { recursive: true });
  fs.writeFileSync(path.join(root, 'usr', 'share', 'hello', 'README'), `${control}\n`);
  const out = path.join(tmp, `${path.basename(root)}.deb`);
  execFileSync('dpkg-deb', ['--root-owner-group', `-Z${z}`, ...(unchecked ? ['--nocheck'] : []), '--build', root, out], { stdio: 'ignore' });
  return out;
}

/**
 * apt in a private root under `dir`: its own sources list (the `deb` line given), state, cache and
 * dpkg status, nothing of the machine's own configuration or keys. Answers a runner of apt-get with
 * these options, giving exit code, stdout and stderr.
 */
export function aptRoot(dir: string, debLine: string): (args: string[], cwd?: string) => Promise<{ code: number; out: string; err: string }> {
  for (const d of ['state/lists/partial', 'cache/archives/partial', 'parts', 'trusted.d', 'prefs.d', 'conf.d', 'log']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  fs.writeFileSync(path.join(dir, 'sources.list'), `${debLine}\n`);
  fs.writeFileSync(path.join(dir, 'status'), '');
  const opts = [
    `Dir::Etc::SourceList=${dir}/sources.list`, `Dir::Etc::SourceParts=${dir}/parts`, `Dir::Etc::TrustedParts=${dir}/trusted.d`, `Dir::Etc::Trusted=${dir}/trusted.gpg`,
    `Dir::Etc::Preferences=${dir}/preferences`, `Dir::Etc::PreferencesParts=${dir}/prefs.d`, `Dir::Etc::Parts=${dir}/conf.d`,
    `Dir::State=${dir}/state`, `Dir::State::status=${dir}/status`, `Dir::Cache=${dir}/cache`, `Dir::Log=${dir}/log`,
    'Debug::NoLocking=1', 'APT::Sandbox::User=root', 'APT::Architecture=amd64', 'APT::Architectures::=amd64', 'Acquire::Languages=none', 'Acquire::Retries=0',
  ].flatMap((o) => ['-o', o]);
  return (args, cwd = dir) => new Promise((resolve) => {
    execFile('apt-get', [...opts, ...args], { cwd, env: { PATH: process.env.PATH!, LANG: 'C' } }, (err, out, errOut) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: String(out), err: String(errOut) });
    });
  });
}

/** An ar archive of `members` ([name, bytes]) as `ar` writes it (a `.deb` is one). */
export function arArchive(members: [string, Buffer][]): Buffer {
  const parts: Buffer[] = [Buffer.from('!<arch>\n')];
  for (const [name, data] of members) {
    parts.push(Buffer.from(`${name.padEnd(16)}${'0'.padEnd(12)}${'0'.padEnd(6)}${'0'.padEnd(6)}${'100644'.padEnd(8)}${String(data.length).padEnd(10)}\`\n`), data);
    if (data.length % 2) parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/** The bytes of a tar of `files` as tar-stream writes it (mode 0644, a fixed time); `segment`: without the end-of-archive blocks (as abuild cuts its control and signature parts). */
export async function tarBytes(files: [string, Buffer | string][], segment = false): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, text] of files) {
    const body = Buffer.from(text);
    pack.entry({ name, size: body.length, mode: 0o644, mtime: new Date(Date.UTC(2025, 0, 1)), uname: 'bench', gname: 'bench' }, body);
  }
  pack.finalize();
  const parts: Buffer[] = [];
  for await (const c of pack) parts.push(c as Buffer);
  const all = Buffer.concat(parts);
  return segment ? all.subarray(0, all.length - 1024) : all;
}

/**
 * An Alpine `.apk` as abuild lays it out, without abuild (not in Debian): an optional signature
 * segment, the control segment holding `.PKGINFO` (`pkginfo` as written), and the data tarball,
 * each its own gzip member. Answers the file and the control member's bytes (whose SHA-1 is `C:`).
 */
export async function apkPackage(pkginfo: string, signed = true): Promise<{ file: Buffer; control: Buffer }> {
  const control = zlib.gzipSync(await tarBytes([['.PKGINFO', Buffer.from(pkginfo)]], true));
  const data = zlib.gzipSync(await tarBytes([['usr/share/hello/README', Buffer.from(`${pkginfo}\n`)]], false));
  const signature = signed ? [zlib.gzipSync(await tarBytes([['.SIGN.RSA.builder@example.com-5f0e.rsa.pub', crypto.randomBytes(512)]], true))] : [];
  return { file: Buffer.concat([...signature, control, data]), control };
}

/** The gzip members of `buf`, each as its exact compressed bytes. why: gunzip joins members into one output. */
export function gzipMembers(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < buf.length) {
    const flags = buf[at + 3];
    let p = at + 10;
    if (flags & 4) p += 2 + buf.readUInt16LE(p);
    for (const bit of [8, 16]) if (flags & bit) { while (buf[p] !== 0) p++; p++; }
    if (flags & 2) p += 2;
    const { engine } = zlib.inflateRawSync(buf.subarray(p), { info: true }) as unknown as { engine: { bytesWritten: number } };
    const end = p + engine.bytesWritten + 8;
    out.push(buf.subarray(at, end));
    at = end;
  }
  return out;
}

/** `rpmbuild -bb` of a package `name` `version`-`release` for `arch` with one script in /usr/bin; `requires` adds a dependency. */
export function rpmPackage(tmp: string, o: { name: string; version: string; release?: string; arch?: string; requires?: string; epoch?: number }): Buffer {
  const top = fs.mkdtempSync(path.join(tmp, 'rpm-'));
  const arch = o.arch ?? 'noarch';
  fs.writeFileSync(path.join(top, 'p.spec'), [
    `Name: ${o.name}`, `Version: ${o.version}`, `Release: ${o.release ?? '1'}`, ...(o.epoch ? [`Epoch: ${o.epoch}`] : []), 'Summary: A test package', 'License: MIT',
    'URL: https://example.com/hello', `BuildArch: ${arch}`, 'AutoReqProv: no', ...(o.requires ? [`Requires: ${o.requires}`] : []),
    '%description', `${o.name} says hello.`, '%install', 'mkdir -p %{buildroot}/usr/bin',
    `printf '#!/bin/sh\\necho ${o.name}\\n' > %{buildroot}/usr/bin/${o.name}`, `chmod 755 %{buildroot}/usr/bin/${o.name}`,
    '%files', `/usr/bin/${o.name}`, '%changelog', '* Tue Mar 07 2023 Ann Packer <ann@example.com> - 1.0-1', '- First release.', '',
  ].join('\n'));
  execFileSync('rpmbuild', ['--define', `_topdir ${top}`, '--define', 'debug_package %{nil}', '--define', '_build_id_links none', '-bb', path.join(top, 'p.spec')], { stdio: 'ignore' });
  const dir = path.join(top, 'RPMS', arch);
  return fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]));
}
