/** user_id follows follow_id. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'follow', underscored: true, timestamps: true })
export class FollowModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare followId: number;
  declare createdAt: Date;
}
