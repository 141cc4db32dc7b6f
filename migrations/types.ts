/** What every migration receives: umzug's context is the query interface of the forge database. */
import type { QueryInterface } from 'sequelize';
export interface MigrationParams { context: QueryInterface }
