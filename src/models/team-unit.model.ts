/** The access mode a team has on one repository unit. */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import type { AccessMode, UnitType } from './perm';

@Table({ tableName: 'team_unit', underscored: true, timestamps: true })
export class TeamUnitModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare orgId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare teamId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare type: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare accessMode: number;
}

/** Per-unit modes of each of these teams (teams without rows map to an empty Map). */
export async function unitsOfTeams(ctx: DbContext, teamIds: number[]): Promise<Map<number, Map<UnitType, AccessMode>>> {
  const out = new Map<number, Map<UnitType, AccessMode>>(teamIds.map((id) => [id, new Map()]));
  if (teamIds.length === 0) return out;
  const rows = await TeamUnitModel.findAll({ where: { teamId: { [Op.in]: teamIds } }, order: [['type', 'ASC']], transaction: ctx.tx });
  for (const r of rows) out.get(r.teamId)?.set(r.type as UnitType, r.accessMode as AccessMode);
  return out;
}

/** Replace a team's unit rows with `units`. */
export async function replaceTeamUnits(ctx: DbContext, orgId: number, teamId: number, units: Map<UnitType, AccessMode>): Promise<void> {
  await TeamUnitModel.destroy({ where: { teamId }, transaction: ctx.tx });
  await TeamUnitModel.bulkCreate([...units].map(([type, accessMode]) => ({ orgId, teamId, type, accessMode })), { transaction: ctx.tx });
}

/** Delete the unit rows of every team of an organization. */
export async function deleteTeamUnitsOfOrg(ctx: DbContext, orgId: number): Promise<void> {
  await TeamUnitModel.destroy({ where: { orgId }, transaction: ctx.tx });
}
