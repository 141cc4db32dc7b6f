/** A user in a team. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'team_user', underscored: true, timestamps: true })
export class TeamUserModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare orgId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare teamId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare uid: number;
}
