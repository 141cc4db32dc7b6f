/** A repository a team has access to. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'team_repo', underscored: true, timestamps: true })
export class TeamRepoModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare orgId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare teamId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
}
