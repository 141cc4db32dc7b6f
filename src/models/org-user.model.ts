/** Membership of a user in an organization (any team). */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'org_user', underscored: true, timestamps: true })
export class OrgUserModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare uid: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare orgId: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isPublic: boolean;
}
