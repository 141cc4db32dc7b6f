/** A name and value of a package version, file or package (Gitea's package_property). */
import { Table, Column, Model, DataType } from 'sequelize-typescript';

/** What a property belongs to (Gitea's PropertyType). */
export enum PropertyRef { Version = 0, File = 1, Package = 2 }

@Table({ tableName: 'package_property', underscored: true, timestamps: false })
export class PackagePropertyModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare refType: PropertyRef;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare refId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare value: string;
}
