/**
 * The migration documents of `schemas/` (JSON Schema draft-04, one per kind: repository,
 * milestone, label, issue, comment, reaction, pull request, review, release, asset), checked with
 * ajv in draft-04 mode. A file of a dump holds one document or a list of them; a refusal names the
 * file, the JSON pointer and the rule, so a restore stops before it writes anything.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { Validation } from '../../errors';

/** The kinds of document, by their schema's file name without `.json`. */
export type DocumentKind = 'repository' | 'milestone' | 'label' | 'issue' | 'comment' | 'reaction' | 'pull_request' | 'review' | 'release' | 'asset';

/** Where the schemas are: the checkout's top-level `schemas/` (this file runs from dist/src/services/migration). */
export const SCHEMA_DIR = path.resolve(__dirname, '..', '..', '..', '..', 'schemas');

let compiled: Map<DocumentKind, ValidateFunction> | null = null;

function validators(): Map<DocumentKind, ValidateFunction> {
  if (compiled) return compiled;
  // why: strict mode refuses the annotations draft-04 documents carry; allErrors off stops at the first broken rule, which is what a refusal names.
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  const files = fs.readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.json'));
  for (const f of files) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, f), 'utf8')) as object);
  compiled = new Map(files.map((f) => [f.replace(/\.json$/, '') as DocumentKind, ajv.getSchema(f)!]));
  return compiled;
}

/** A document that breaks its schema: which file, where in it, and which rule. */
export class InvalidDocument extends Validation {
  constructor(readonly file: string, readonly pointer: string, readonly rule: string) {
    super(`${file}: ${pointer || '/'}: ${rule}`);
  }
}

/** Check `value` (one document of `kind`, or a list of them when `list`) read from `file`; throws InvalidDocument. */
export function checkDocuments(kind: DocumentKind, value: unknown, file: string, list: boolean): void {
  const validate = validators().get(kind);
  if (!validate) throw new Error(`no schema for ${kind}`);
  const items = list ? value : [value];
  if (!Array.isArray(items)) throw new InvalidDocument(file, '', 'must be an array');
  items.forEach((item, i) => {
    if (validate(item)) return;
    const e = validate.errors![0];
    const at = `${list ? `/${i}` : ''}${e.instancePath}`;
    const extra = e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : '';
    throw new InvalidDocument(file, at, `${e.keyword}: ${e.message ?? 'is not valid'}${extra}`);
  });
}
