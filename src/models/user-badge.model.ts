/** A badge given to a user. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'user_badge', underscored: true, timestamps: true })
export class UserBadgeModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare badgeId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
}
