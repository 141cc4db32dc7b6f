/**
 * Reading `.deb` uploads: packages built by `dpkg-deb` with each control compression (gzip, xz,
 * zstd, none) give their control file and fields; hostile ones are refused with 400 before anything
 * past their end is read (ar sizes that lie, a control or data tarball of 10 GB of zeros, a link, a
 * climbing path) and so are names, versions and architectures that could break a path or an index
 * line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { readDebPackage } from '../../src/services/packages/deb';
import { tarGzOfZeros, zstdOfZeros } from '../helpers/bombs';
import { arArchive, debPackage } from '../helpers/packages';

describe('reading .deb packages', function () {
  this.timeout(60_000);
  let tmp: string;
  before(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-deb-')); });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const build = (control: string, z = 'gzip') => debPackage(tmp, control, z);

  /** An ar archive of `members` in a file. */
  function ar(members: [string, Buffer][]): string {
    const out = path.join(tmp, `ar-${Math.random().toString(36).slice(2)}.deb`);
    fs.writeFileSync(out, arArchive(members));
    return out;
  }

  const CONTROL = 'Package: hello-forge\nVersion: 1:2.0-1+b1\nArchitecture: amd64\nMaintainer: Ann Packer <ann@example.com>\nDepends: libc6 (>= 2.36),\n libfoo\nHomepage: https://example.com/hello\nDescription: says hello\n A longer text.\n';

  it('reads the control file of packages built by dpkg-deb with each control compression', async () => {
    for (const z of ['gzip', 'xz', 'zstd', 'none']) {
      const deb = await readDebPackage(build(CONTROL, z));
      expect(deb, z).to.deep.include({
        name: 'hello-forge', version: '1:2.0-1+b1', architecture: 'amd64', maintainer: 'Ann Packer <ann@example.com>', homepage: 'https://example.com/hello',
        dependencies: ['libc6 (>= 2.36)', 'libfoo'], control: CONTROL.trim(),
      });
    }
  });

  it('refuses names, versions and architectures that are not Debian\'s, and a control file with a blank line', async () => {
    // why: dpkg-deb refuses to build such packages, so these are put together by hand, as an attacker would.
    const refused = async (control: string, message: string) => {
      const deb = ar([['debian-binary', Buffer.from('2.0\n')], ['control.tar.gz', execFileSync('tar', ['-czf', '-', '-C', makeControlDir(control), 'control'])]]);
      expect(await readDebPackage(deb).then(() => '', (e: Error) => e.message), control).to.equal(message);
    };
    await refused('Package: Hello\nVersion: 1.0\nArchitecture: amd64\n', 'package name is invalid');
    await refused('Package: hello\nVersion: 1.0_x\nArchitecture: amd64\n', 'package version is invalid');
    await refused('Package: hello\nVersion: 1.0\nArchitecture: amd/64\n', 'package architecture is invalid');
    await refused('Package: hello\nVersion: 1.0\n\nArchitecture: amd64\n', 'control file is invalid');
  });

  /** A directory holding a file `control` with `text`. */
  function makeControlDir(text: string): string {
    const dir = fs.mkdtempSync(path.join(tmp, 'ctl-'));
    fs.writeFileSync(path.join(dir, 'control'), text);
    return dir;
  }

  it('refuses hostile archives early: lying sizes, 10 GB of zeros, links, climbing names, no ar at all', async () => {
    const good = fs.readFileSync(build(CONTROL));
    const lying = Buffer.from(good);
    // why: the first member's size field (bytes 56..66) now claims more than the file holds.
    lying.write('9999999999', 8 + 48, 'latin1');
    const lyingFile = path.join(tmp, 'lying.deb');
    fs.writeFileSync(lyingFile, lying);
    expect(await readDebPackage(lyingFile).then(() => '', (e: Error) => e.message)).to.match(/claims more bytes than the file holds/);
    const bomb = ar([['debian-binary', Buffer.from('2.0\n')], ['control.tar.gz', tarGzOfZeros([['zeros', 5 * 2 ** 30], ['zeros2', 5 * 2 ** 30]])]]);
    expect(await readDebPackage(bomb).then(() => '', (e: Error) => e.message)).to.match(/the archive (unpacks to more than|is compressed more than)/);
    // A zstd control member of 10 GB of zeros in 300 KB (zstd's own bomb: RLE blocks).
    const zstdBomb = ar([['control.tar.zst', zstdOfZeros(10 * 2 ** 30)]]);
    expect(await readDebPackage(zstdBomb).then(() => '', (e: Error) => e.message)).to.match(/the archive (unpacks to more than|is compressed more than)/);
    // A real control member beside a data member of 10 GB of zeros (gzip'd, zstd'd; 200 MB of them xz'd): refused after unpacking its first 64 MB.
    const control = execFileSync('tar', ['-czf', '-', '-C', makeControlDir(CONTROL), 'control']);
    const xzZeros = execFileSync('sh', ['-c', 'head -c 200000000 /dev/zero | xz -0 -T1 -c'], { maxBuffer: 1 << 26 });
    for (const data of [['data.tar.gz', tarGzOfZeros([['zeros', 10e9]])], ['data.tar.zst', zstdOfZeros(10e9)], ['data.tar.xz', xzZeros]] as [string, Buffer][]) {
      const dataBomb = ar([['debian-binary', Buffer.from('2.0\n')], ['control.tar.gz', control], data]);
      expect(await readDebPackage(dataBomb).then(() => '', (e: Error) => e.message), data[0]).to.equal('the archive is compressed more than 200 to 1');
    }
    const linkDir = makeControlDir(CONTROL);
    fs.symlinkSync('/etc/passwd', path.join(linkDir, 'passwd'));
    const link = ar([['control.tar.gz', execFileSync('tar', ['-czf', '-', '-C', linkDir, 'passwd', 'control'])]]);
    expect(await readDebPackage(link).then(() => '', (e: Error) => e.message)).to.match(/not a plain file/);
    const climb = ar([['control.tar.gz', execFileSync('tar', ['-czf', '-', '-P', '-C', linkDir, '--transform', 's,^control$,../../control,', 'control'])]]);
    expect(await readDebPackage(climb).then(() => '', (e: Error) => e.message)).to.match(/unsafe entry/);
    const notAr = path.join(tmp, 'not-ar.deb');
    fs.writeFileSync(notAr, 'hello');
    expect(await readDebPackage(notAr).then(() => '', (e: Error) => e.message)).to.equal('package has invalid structure: not an ar archive');
    expect(await readDebPackage(ar([['debian-binary', Buffer.from('2.0\n')]])).then(() => '', (e: Error) => e.message)).to.equal('control file is missing');
    expect(await readDebPackage(ar([['control.tar.bz2', Buffer.from('x')]])).then(() => '', (e: Error) => e.message)).to.equal('unsupported compression algorithm');
  });
});
