/** A collaborator of a repository with an access mode. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'collaboration', underscored: true, timestamps: true })
export class CollaborationModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 2 }) declare mode: number;
  declare createdAt: Date;
  declare updatedAt: Date;
}
