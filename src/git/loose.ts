/**
 * Writing a loose object straight into a quarantine object directory: git's own format (a
 * `<type> <size>\0` header and the body, deflated, named by the SHA-1 of both). why: a rebase
 * writes two commits per replayed commit; a git process for each was two thirds of its time.
 * Only into a quarantine, whose objects git checks before they enter the repository.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';

const deflate = promisify(zlib.deflate);

/** Write `body` as an object of `type` into the object directory `dir`; returns its id. */
export async function writeLooseObject(dir: string, type: 'commit' | 'tree' | 'blob', body: Buffer): Promise<string> {
  const data = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
  const id = crypto.createHash('sha1').update(data).digest('hex');
  const file = path.join(dir, id.slice(0, 2), id.slice(2));
  if (await fs.access(file).then(() => true, () => false)) return id;
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, await deflate(data));
  await fs.rename(tmp, file);
  return id;
}

/** A person line's value as git writes it: `Name <email> <unix seconds> <offset>`. */
export function identLine(p: { name: string; email: string; date: Date; offset?: string }): string {
  return `${p.name} <${p.email}> ${Math.floor(p.date.getTime() / 1000)} ${p.offset ?? '+0000'}`;
}

/** The text of a commit object. */
export function commitText(tree: string, parents: string[], author: string, committer: string, message: string): Buffer {
  return Buffer.from(`tree ${tree}\n${parents.map((p) => `parent ${p}\n`).join('')}author ${author}\ncommitter ${committer}\n\n${message}`);
}
