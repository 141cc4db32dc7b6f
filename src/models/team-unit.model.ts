/** The access mode a team has on one repository unit. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'team_unit', underscored: true, timestamps: true })
export class TeamUnitModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare orgId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare teamId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare type: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare accessMode: number;
}
