/** One statement that gives each of many rows its own value of a column. */
import { db, type DbContext } from '../db';

/**
 * Set `column` of rows of `table` to per-row values, `[id, value]` pairs, in one
 * `UPDATE ... SET column = CASE id WHEN ... END WHERE id IN (...)`. why: a batch of claims or
 * presence times would otherwise cost a statement per row.
 */
export async function setByCase(ctx: DbContext, table: string, column: string, pairs: [number, number | string][]): Promise<void> {
  if (pairs.length === 0) return;
  const replacements: Record<string, number | string> = {};
  const cases = pairs.map(([id, value], i) => {
    replacements[`i${i}`] = id;
    replacements[`v${i}`] = value;
    return `WHEN :i${i} THEN :v${i}`;
  });
  await db().query(`UPDATE ${table} SET ${column} = CASE id ${cases.join(' ')} END WHERE id IN (${pairs.map((_p, i) => `:i${i}`).join(', ')})`, { replacements, transaction: ctx.tx });
}
