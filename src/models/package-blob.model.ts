/** The bytes of package files, kept once by content (Gitea's package_blob): size and four hashes. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'package_blob', underscored: true, timestamps: false })
export class PackageBlobModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare size: number;
  @Column({ type: DataType.STRING(32), allowNull: false }) declare hashMd5: string;
  @Column({ type: DataType.STRING(40), allowNull: false }) declare hashSha1: string;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare hashSha256: string;
  @Column({ type: DataType.STRING(128), allowNull: false }) declare hashSha512: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
}
