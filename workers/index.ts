/**
 * The Piscina task file: every CPU-heavy or blocking git read the server hands to worker threads.
 * Each export is one task, called by name through src/pool. Tasks never touch the database.
 */
import os from 'node:os';
import { isMainThread } from 'node:worker_threads';
import { keepingStatus } from './errors';
import { checkSignature as checkSignatureTask } from './tasks/signatures';
import { lastCommits as lastCommitsTask, treePage as treePageTask } from './tasks/contents';
import { languageStats as languageStatsTask } from './tasks/languages';
import { detectLicenses as detectLicensesTask } from './tasks/licenses';
import { aheadBehind as aheadBehindTask } from './tasks/graph';
import { matchRegexes as matchRegexesTask } from './tasks/patterns';
import { alpineIndex as alpineIndexTask, debianIndex as debianIndexTask, rpmIndex as rpmIndexTask } from './tasks/package-indexes';
import { highlightFile as highlightFileTask, renderMarkup as renderMarkupTask, renderMarkupBatch as renderMarkupBatchTask } from './tasks/markup';

/** How much lower than the event loop the pool's threads run (nice levels). */
const POOL_NICE = 10;

// why: the pool's threads do work that waits for nobody but its own request, while the event loop
// answers every request; when they compete for a core the loop goes first. On Linux a thread's nice
// value is its own, so this lowers the pool threads only (and never a main thread that loads this file).
if (!isMainThread) {
  try {
    os.setPriority(Math.min(19, os.getPriority() + POOL_NICE));
  } catch { /* not permitted here: run as is */ }
}

export const checkSignature = keepingStatus(checkSignatureTask);
export const lastCommits = keepingStatus(lastCommitsTask);
export const treePage = keepingStatus(treePageTask);
export const languageStats = keepingStatus(languageStatsTask);
export const detectLicenses = keepingStatus(detectLicensesTask);
export const aheadBehind = keepingStatus(aheadBehindTask);
export const matchRegexes = keepingStatus(matchRegexesTask);
export const renderMarkup = keepingStatus(renderMarkupTask);
export const renderMarkupBatch = keepingStatus(renderMarkupBatchTask);
export const highlightFile = keepingStatus(highlightFileTask);
export const debianIndex = keepingStatus(debianIndexTask);
export const alpineIndex = keepingStatus(alpineIndexTask);
export const rpmIndex = keepingStatus(rpmIndexTask);
