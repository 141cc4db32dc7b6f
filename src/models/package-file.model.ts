/** A file of a package version (Gitea's package_file), pointing at the blob of its bytes. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'package_file', underscored: true, timestamps: false })
export class PackageFileModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare versionId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare blobId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare lowerName: string;
  /** What tells two files of one name apart (CRAN binaries: `platform|rversion`); '' for most. */
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare compositeKey: string;
  /** The file whose download counts as a download of the version. */
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isLead: boolean;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
}
