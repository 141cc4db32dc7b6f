/**
 * Branch and tag names as Gitea's GitRefName binding rule accepts them, with its 422 messages
 * (`[Field]: GitRefName`, `[Field]: MaxSize`, `[Field]: Required`).
 */
import { Validation } from '../../errors';

// why: the characters git forbids in ref names (check-ref-format), plus backslash.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\x00-\x20\x7f~^:?*[\\]/;

/** Is `name` usable as a branch or tag name? Leading '-' is refused so a name can never act as an option. */
export function isValidRefName(name: string): boolean {
  if (typeof name !== 'string' || name === '' || name === '@' || name.startsWith('-') || FORBIDDEN.test(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.endsWith('.')) return false;
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

/** Check a required name field; throws Gitea's 422. */
export function assertRefName(value: string | undefined, field: string, maxSize: number): string {
  if (value === undefined || value === null || value === '') throw new Validation(`[${field}]: Required`);
  if (!isValidRefName(value)) throw new Validation(`[${field}]: GitRefName`);
  if ([...value].length > maxSize) throw new Validation(`[${field}]: MaxSize`);
  return value;
}

/** Check an optional name field (empty passes). */
export function assertOptionalRefName(value: string | undefined, field: string, maxSize: number): string {
  if (value === undefined || value === null || value === '') return '';
  return assertRefName(value, field, maxSize);
}
