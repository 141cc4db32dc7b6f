/**
 * The Piscina task file: every CPU-heavy or blocking git read the server hands to worker threads.
 * Each export is one task, called by name through src/pool. Tasks never touch the database.
 */
export { checkSignature } from './tasks/signatures';
export { lastCommits, treePage } from './tasks/contents';
export { languageStats } from './tasks/languages';
export { matchRegexes } from './tasks/patterns';
