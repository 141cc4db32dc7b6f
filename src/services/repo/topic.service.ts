/**
 * Repository topics with Gitea's rules: names are trimmed and lowercased, match
 * `^[a-z0-9][-.a-z0-9]*$`, are at most 35 characters, and a repository has at most 25.
 * topic.repo_count follows every attach and detach in the same transaction.
 */
import { withTx, type DbContext } from '../../db';
import { HttpError, NotFound, Validation } from '../../errors';
import { findOrCreateTopic, findTopicByName, findTopicsByIds, adjustTopicRepoCount, searchTopics as searchTopicRows, type TopicModel } from '../../models/topic.model';
import { topicIdsOfRepo, insertRepoTopic, deleteRepoTopic } from '../../models/repo-topic.model';
import type { RepoContext } from './context';
import { assertRepoAdmin } from './collaborator.service';

/** Most topics one repository may carry. */
export const MAX_TOPICS = 25;
const TOPIC_PATTERN = /^[a-z0-9][-.a-z0-9]*$/;

/** Is `name` (already normalized) a valid topic? */
export function isValidTopic(name: string): boolean {
  return name.length <= 35 && TOPIC_PATTERN.test(name);
}

/** Trim and lowercase each name, drop empties and duplicates, and split into valid and invalid. */
export function sanitizeTopics(names: string[]): { valid: string[]; invalid: string[] } {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const raw of names) {
    const t = raw.trim().toLowerCase();
    if (!t || valid.includes(t) || invalid.includes(t)) continue;
    (isValidTopic(t) ? valid : invalid).push(t);
  }
  return { valid, invalid };
}

// why: Gitea's topic errors carry an extra `invalidTopics` field beside the message.
function topicError(message: string, invalidTopics: string[] | string | null): HttpError {
  return new HttpError(422, message, {}, { invalidTopics });
}

/** The repository's topic names, alphabetically. */
export async function repoTopicNames(ctx: DbContext, rc: RepoContext): Promise<string[]> {
  return (await findTopicsByIds(ctx, await topicIdsOfRepo(ctx, rc.repo.id))).map((t) => t.name);
}

/** Replace the repository's topics with `names` (repository admins). */
export async function replaceTopics(ctx: DbContext, rc: RepoContext, names: string[]): Promise<void> {
  assertRepoAdmin(rc);
  const { valid, invalid } = sanitizeTopics(names);
  // why: Gitea checks the count of valid names before reporting invalid ones.
  if (valid.length > MAX_TOPICS) throw topicError('Exceeding maximum number of topics per repo', null);
  if (invalid.length > 0) throw topicError('Topic names are invalid', invalid);
  // why: detaching, attaching and the per-topic counts change together or not at all.
  await withTx(ctx, async (tx) => {
    const current = await findTopicsByIds(tx, await topicIdsOfRepo(tx, rc.repo.id));
    for (const t of current) {
      if (valid.includes(t.name)) continue;
      await deleteRepoTopic(tx, rc.repo.id, t.id);
      await adjustTopicRepoCount(tx, t.id, -1);
    }
    const have = new Set(current.map((t) => t.name));
    for (const name of valid) if (!have.has(name)) await attach(tx, rc, name);
  });
}

async function attach(tx: DbContext, rc: RepoContext, name: string): Promise<void> {
  const topic = await findOrCreateTopic(tx, name);
  await insertRepoTopic(tx, rc.repo.id, topic.id);
  await adjustTopicRepoCount(tx, topic.id, 1);
}

/** Add one topic (no-op when present; repository admins). */
export async function addTopic(ctx: DbContext, rc: RepoContext, raw: string): Promise<void> {
  assertRepoAdmin(rc);
  const name = raw.trim().toLowerCase();
  if (!isValidTopic(name)) throw topicError('Topic name is invalid', name);
  await withTx(ctx, async (tx) => {
    const names = await repoTopicNames(tx, rc);
    // why: as Gitea, a full repository refuses even a topic it already has (the message differs from the bulk one).
    if (names.length >= MAX_TOPICS) throw new Validation('Exceeding maximum allowed topics per repo.');
    if (!names.includes(name)) await attach(tx, rc, name);
  });
}

/** Remove one topic (repository admins); 404 when the repository does not carry it. */
export async function removeTopic(ctx: DbContext, rc: RepoContext, raw: string): Promise<void> {
  assertRepoAdmin(rc);
  const name = raw.trim().toLowerCase();
  if (!isValidTopic(name)) throw topicError('Topic name is invalid', name);
  await withTx(ctx, async (tx) => {
    const topic = await findTopicByName(tx, name);
    if (!topic || !(await deleteRepoTopic(tx, rc.repo.id, topic.id))) throw new NotFound();
    await adjustTopicRepoCount(tx, topic.id, -1);
  });
}

/** One page of topics matching `q`. */
export function searchTopics(ctx: DbContext, q: string, limit: number, offset: number): Promise<{ rows: TopicModel[]; count: number }> {
  return searchTopicRows(ctx, q.trim(), limit, offset);
}
