/**
 * Fault drills: making a directory unwritable behind the server's back, for root too.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const asRoot = process.getuid?.() === 0;

/** Make a directory unwritable, for root too (the immutable flag; plain permissions for anyone else). */
export function lockDir(dir: string): void {
  if (asRoot) execFileSync('chattr', ['+i', dir]);
  else fs.chmodSync(dir, 0o555);
}

/** Undo lockDir. */
export function unlockDir(dir: string): void {
  if (asRoot) execFileSync('chattr', ['-i', dir]);
  else fs.chmodSync(dir, 0o755);
}
