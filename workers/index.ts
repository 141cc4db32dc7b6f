/**
 * The Piscina task file: every CPU-heavy or blocking git read the server hands to worker threads.
 * Each export is one task, called by name through src/pool. Tasks never touch the database.
 */
import { keepingStatus } from './errors';
import { checkSignature as checkSignatureTask } from './tasks/signatures';
import { lastCommits as lastCommitsTask, treePage as treePageTask } from './tasks/contents';
import { languageStats as languageStatsTask } from './tasks/languages';
import { matchRegexes as matchRegexesTask } from './tasks/patterns';
import { highlightFile as highlightFileTask, renderMarkup as renderMarkupTask } from './tasks/markup';

export const checkSignature = keepingStatus(checkSignatureTask);
export const lastCommits = keepingStatus(lastCommitsTask);
export const treePage = keepingStatus(treePageTask);
export const languageStats = keepingStatus(languageStatsTask);
export const matchRegexes = keepingStatus(matchRegexesTask);
export const renderMarkup = keepingStatus(renderMarkupTask);
export const highlightFile = keepingStatus(highlightFileTask);
