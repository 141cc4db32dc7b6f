/** A collaborator of a repository with an access mode. */
import { db, type DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'collaboration', underscored: true, timestamps: true })
export class CollaborationModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 2 }) declare mode: number;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** One page of a repository's collaborators (rows with user ids and modes), oldest first. */
export async function listCollaborations(ctx: DbContext, repoId: number, limit: number, offset: number): Promise<{ rows: CollaborationModel[]; count: number }> {
  return CollaborationModel.findAndCountAll({ where: { repoId }, order: [['id', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** Add `userId` as collaborator with `mode`, or change the mode of an existing one. */
export async function upsertCollaboration(ctx: DbContext, repoId: number, userId: number, mode: number): Promise<void> {
  const found = await CollaborationModel.findOne({ where: { repoId, userId }, transaction: ctx.tx });
  if (found) await found.update({ mode }, { transaction: ctx.tx });
  else await CollaborationModel.create({ repoId, userId, mode }, { transaction: ctx.tx });
}

/** Remove a collaborator; false when the user was none. */
export async function deleteCollaboration(ctx: DbContext, repoId: number, userId: number): Promise<boolean> {
  return (await CollaborationModel.destroy({ where: { repoId, userId }, transaction: ctx.tx })) > 0;
}

/**
 * Remove the collaborators of a repository who are `userId` or members of organization `userId`
 * (when a repository moves to that owner, their own access replaces the collaboration).
 */
export async function deleteCollaboratorsCoveredBy(ctx: DbContext, repoId: number, userId: number): Promise<void> {
  await db().query('DELETE FROM collaboration WHERE repo_id = :repoId AND (user_id = :userId OR user_id IN (SELECT uid FROM org_user WHERE org_id = :userId))', {
    replacements: { repoId, userId }, transaction: ctx.tx,
  });
}
