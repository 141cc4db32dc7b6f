/** An SSH public key of a user (type 1) or a deploy key (type 2). */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'public_key', underscored: true, timestamps: true })
export class PublicKeyModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare fingerprint: string;
  @Column({ type: DataType.TEXT, allowNull: false }) declare content: string;
  @Column({ type: DataType.STRING(32), allowNull: false }) declare keyType: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 2 }) declare mode: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 1 }) declare type: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare verified: boolean;
  @Column({ type: DataType.DATE, allowNull: true }) declare lastUsedAt: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
