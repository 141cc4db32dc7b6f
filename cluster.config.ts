/**
 * Cluster topology: how many worker processes the primary forks and which mode they run in.
 * Environment variables win so an admin can change a deployment without a rebuild.
 */
export interface ClusterConfig {
  /** Number of worker processes forked by the primary (each runs HTTP + SSH). */
  workers: number;
  /** "embedded": SQLite + memory locks on one machine; "cluster": PostgreSQL + Redis, any number of machines. */
  mode: 'embedded' | 'cluster';
}

const workers = Number(process.env.FORGE_WORKERS ?? '1');
const mode = (process.env.FORGE_MODE ?? 'embedded') as ClusterConfig['mode'];

const clusterConfig: ClusterConfig = { workers, mode };
export default clusterConfig;
