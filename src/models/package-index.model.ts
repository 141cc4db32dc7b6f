/**
 * The state of an owner's generated package index (package_index): how many changes touched it
 * (`wanted`) and how many its stored files reflect (`built`). Keys: the Debian distribution, the
 * RPM group, the Alpine branch.
 */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';

@Table({ tableName: 'package_index', underscored: true, timestamps: false })
export class PackageIndexModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare type: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare indexKey: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare wanted: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare built: number;
}

/** One index: its owner, package type and key. */
export interface IndexRef { ownerId: number; type: string; key: string }

/**
 * Count a change to an index (made on first use) and answer its new `wanted` count: the index
 * reflects the change once `built` reaches it. why: an upsert, so concurrent uploads to one index
 * neither collide on its first row nor lose a count.
 */
export async function wantIndex(ctx: DbContext, i: IndexRef): Promise<number> {
  await db().query(
    `INSERT INTO package_index (owner_id, type, index_key, wanted, built) VALUES (:ownerId, :type, :key, 1, 0)
       ON CONFLICT (owner_id, type, index_key) DO UPDATE SET wanted = package_index.wanted + 1`,
    { replacements: { ...i }, transaction: ctx.tx },
  );
  // why: the row stays locked by this transaction until it commits, so this is the count it made.
  return (await indexState(ctx, i)).wanted;
}

/** An index's counts (zeros when no change was ever counted). */
export async function indexState(ctx: DbContext, i: IndexRef): Promise<{ wanted: number; built: number }> {
  const row = await PackageIndexModel.findOne({ where: { ownerId: i.ownerId, type: i.type, indexKey: i.key }, transaction: ctx.tx });
  return { wanted: Number(row?.wanted ?? 0), built: Number(row?.built ?? 0) };
}

/** Record that the stored index reflects `built` changes (never lowered). */
export async function markIndexBuilt(ctx: DbContext, i: IndexRef, built: number): Promise<void> {
  await db().query('UPDATE package_index SET built = :built WHERE owner_id = :ownerId AND type = :type AND index_key = :key AND built < :built', {
    replacements: { ...i, built }, transaction: ctx.tx,
  });
}
