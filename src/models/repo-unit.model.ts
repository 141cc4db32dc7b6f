/** An enabled unit of a repository (code, issues, pulls ...), with its JSON config. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'repo_unit', underscored: true, timestamps: true })
export class RepoUnitModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare type: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '{}' }) declare config: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare anonymousAccessMode: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare everyoneAccessMode: number;
}
