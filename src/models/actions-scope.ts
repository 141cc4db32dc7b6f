/**
 * The rows of a repository's, a user's or an organization's actions settings (secrets and
 * variables): looked up by scope and upper-cased name, listed by id.
 */
import { Op, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import type { DbContext } from '../db';

/** Whose secrets or variables: a repository's (`ownerId` 0) or a user's or organization's (`repoId` 0). */
export interface ActionsScope { ownerId: number; repoId: number }

const where = <M extends Model>(s: ActionsScope, name?: string) => ({ ...s, ...(name === undefined ? {} : { name }) }) as WhereOptions<M>;

/** A scope's rows by id, one page (all of them without `page`), and their number. */
export function listScoped<M extends Model>(model: ModelStatic<M>, ctx: DbContext, s: ActionsScope, page?: { limit: number; offset: number }): Promise<{ rows: M[]; count: number }> {
  return model.findAndCountAll({ where: where<M>(s), order: [['id', 'ASC']], ...(page ?? {}), transaction: ctx.tx });
}

/** The rows of several scopes at once (a task's repository, its owner, the instance), by id. */
export function rowsOfScopes<M extends Model>(model: ModelStatic<M>, ctx: DbContext, scopes: ActionsScope[]): Promise<M[]> {
  return model.findAll({ where: { [Op.or]: scopes.map((s) => where<M>(s)) } as WhereOptions<M>, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** A scope's row by its (upper-cased) name, or null. */
export function findScoped<M extends Model>(model: ModelStatic<M>, ctx: DbContext, s: ActionsScope, name: string): Promise<M | null> {
  return model.findOne({ where: where<M>(s, name), transaction: ctx.tx });
}

/** Delete a scope's row by name; whether there was one. */
export async function deleteScoped<M extends Model>(model: ModelStatic<M>, ctx: DbContext, s: ActionsScope, name: string): Promise<boolean> {
  return (await model.destroy({ where: where<M>(s, name), transaction: ctx.tx })) > 0;
}
