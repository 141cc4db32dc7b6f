/** A team of an organization; authorize is an access mode (1 read .. 4 owner). */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'team', underscored: true, timestamps: true })
export class TeamModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare orgId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare lowerName: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 1 }) declare authorize: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare includesAllRepositories: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare canCreateOrgRepo: boolean;
}
