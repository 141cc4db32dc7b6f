/** A badge an administrator can give to users. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'badge', underscored: true, timestamps: true })
export class BadgeModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(255), allowNull: false, unique: true }) declare slug: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.STRING(2048), allowNull: false, defaultValue: '' }) declare imageUrl: string;
}
