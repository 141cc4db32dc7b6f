/** One statement that gives each of many rows its own values. */
import { QueryTypes } from 'sequelize';
import { db, type DbContext } from '../db';

type Value = number | string | boolean;

/** What else a per-row update does: `set` columns to one value each, `increment` columns by one, and requires `where` a column among values. */
export interface CaseUpdateOptions { set?: Record<string, number>; increment?: string[]; where?: { column: string; in: number[] } }

/**
 * Set `columns` of rows of `table` to per-row values, rows given as `[id, ...values]`, in one
 * `UPDATE ... SET column = CASE id WHEN ... END, ... WHERE id IN (...)`, optionally guarded on
 * another column. Returns the ids of the rows changed. why: a batch of claims, reports or presence
 * times would otherwise cost a statement per row.
 */
export async function setByCase(ctx: DbContext, table: string, columns: string[], rows: [number, ...Value[]][], opts: CaseUpdateOptions = {}): Promise<number[]> {
  if (rows.length === 0) return [];
  const replacements: Record<string, Value | number[]> = {};
  rows.forEach(([id, ...values], i) => {
    replacements[`i${i}`] = id;
    values.forEach((v, c) => { replacements[`v${i}_${c}`] = v; });
  });
  const sets = columns.map((col, c) => `${col} = CASE id ${rows.map((_r, i) => `WHEN :i${i} THEN :v${i}_${c}`).join(' ')} END`);
  for (const [col, v] of Object.entries(opts.set ?? {})) {
    replacements[`s_${col}`] = v;
    sets.push(`${col} = :s_${col}`);
  }
  for (const col of opts.increment ?? []) sets.push(`${col} = ${col} + 1`);
  let where = `id IN (${rows.map((_r, i) => `:i${i}`).join(', ')})`;
  if (opts.where) {
    replacements.guard = opts.where.in;
    where += ` AND ${opts.where.column} IN (:guard)`;
  }
  const changed = await db().query<{ id: number }>(`UPDATE ${table} SET ${sets.join(', ')} WHERE ${where} RETURNING id`, { replacements, type: QueryTypes.SELECT, transaction: ctx.tx });
  return changed.map((r) => Number(r.id));
}
