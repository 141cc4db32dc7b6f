/** A GPG key or subkey of a user; subkeys point at their primary by primary_key_id. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'gpg_key', underscored: true, timestamps: true })
export class GpgKeyModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(16), allowNull: false }) declare keyId: string;
  @Column({ type: DataType.STRING(16), allowNull: false, defaultValue: '' }) declare primaryKeyId: string;
  @Column({ type: DataType.TEXT, allowNull: false }) declare content: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '[]' }) declare emails: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare verified: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare canSign: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare canEncryptComms: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare canEncryptStorage: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare canCertify: boolean;
  @Column({ type: DataType.DATE, allowNull: true }) declare keyCreatedAt: Date | null;
  @Column({ type: DataType.DATE, allowNull: true }) declare expiresAt: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}
