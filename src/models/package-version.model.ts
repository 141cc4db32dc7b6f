/** A version of a package (Gitea's package_version): its name in any case and lower case, creator, time, metadata and downloads. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'package_version', underscored: true, timestamps: false })
export class PackageVersionModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare packageId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare creatorId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare version: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare lowerVersion: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isInternal: boolean;
  /** The format's metadata of this version, as JSON. */
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare metadataJson: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare downloadCount: number;
}
