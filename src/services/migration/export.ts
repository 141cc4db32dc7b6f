/**
 * A repository's labels, milestones, issues, comments, pull requests, reviews and releases as the
 * migration documents of schemas/, read from the database in bulk: a page of issues or pull
 * requests at a time, with one query per table for the page's labels, assignees, comments,
 * reactions, reviews and people. A person is the local user (id, name and email, so a restore on
 * a forge that knows the address gives the row back to that user); a row that was itself migrated
 * keeps its source's name and id (original_author), without an email.
 */
import type { DbContext } from '../../db';
import { runGit } from '../../git/run';
import type { RepositoryModel } from '../../models/repository.model';
import { findUsersByIds, type UserModel } from '../../models/user.model';
import type { IssueModel } from '../../models/issue.model';
import { CommentType, commentsOfReviews, type CommentModel } from '../../models/comment.model';
import { labelIdsOfIssues, labelsByIds, listLabels, type LabelModel } from '../../models/label.model';
import { listMilestones } from '../../models/milestone.model';
import { pullsOfIssues } from '../../models/pull-request.model';
import { ReviewType } from '../../models/review.model';
import { listReleaseAttachments } from '../../models/attachment.model';
import { assigneeIdsOfIssues } from '../../models/issue-links';
import { topicIdsOfRepo } from '../../models/repo-topic.model';
import { findTopicsByIds } from '../../models/topic.model';
import { commentsOfIssues, issuePageOfRepo, reactionsOfIssues, releasesOfRepo, submittedReviewsOf } from '../../models/repo-dump';
import type {
  AssetDoc, CommentDoc, IssueDoc, LabelDoc, MilestoneDoc, PullRequestDoc, ReactionDoc, ReleaseDoc, RepositoryDoc, ReviewCommentDoc, ReviewDoc,
} from './document-types';

/** Issues (or pull requests) read per page. */
const PAGE = 200;

const STATES: Partial<Record<ReviewType, ReviewDoc['state']>> = { [ReviewType.Approve]: 'APPROVED', [ReviewType.Reject]: 'CHANGES_REQUESTED', [ReviewType.Comment]: 'COMMENTED' };

/** Unix seconds as RFC 3339 (schemas' date-time). */
const iso = (unix: number) => new Date(Number(unix) * 1000).toISOString().replace('.000Z', 'Z');
const isoOrNull = (unix: number) => (Number(unix) > 0 ? iso(unix) : null);

/** Who wrote a row, as a document names them. */
interface Person { id: number; name: string; email?: string }

/** A row with an author: a local user, or a person of the source it was migrated from. */
interface Authored { originalAuthor: string; originalAuthorId: number }

/** A page of issues or pull requests with what hangs off them. */
export interface IssuePage<T> { docs: T[]; comments: CommentDoc[]; reviews: ReviewDoc[] }

/** A release asset of the dump: its document, and the stored file whose bytes its download_url names. */
export interface AssetFile { doc: AssetDoc; uuid: string }

/** Reads one repository's documents. */
export class RepoExporter {
  private labelRows = new Map<number, LabelModel>();
  private milestoneNames = new Map<number, string>();
  private pullHeads: Map<number, string> | null = null;
  private named: Promise<unknown> | null = null;

  constructor(private readonly ctx: DbContext, private readonly repo: RepositoryModel, private readonly gitDir: string) {}

  /** The repository itself, with its owner's name and its topics. */
  async repository(): Promise<RepositoryDoc> {
    const r = this.repo;
    const topics = (await findTopicsByIds(this.ctx, await topicIdsOfRepo(this.ctx, r.id))).map((t) => t.name).sort();
    return {
      name: r.name, owner: r.ownerName, description: r.description, website: r.website, is_private: r.isPrivate, is_mirror: r.isMirror,
      default_branch: r.defaultBranch, original_url: r.originalUrl, topics,
    };
  }

  /** The repository's labels. */
  async labels(): Promise<LabelDoc[]> {
    const { rows } = await listLabels(this.ctx, { repoId: this.repo.id }, 'alphabetically');
    for (const l of rows) this.labelRows.set(l.id, l);
    return rows.map(labelDoc);
  }

  /** The repository's milestones. */
  async milestones(): Promise<MilestoneDoc[]> {
    const { rows } = await listMilestones(this.ctx, this.repo.id, {});
    for (const m of rows) this.milestoneNames.set(m.id, m.name);
    return rows.map((m) => ({
      title: m.name, description: m.content, deadline: isoOrNull(m.deadlineUnix), created: iso(m.createdUnix), updated: isoOrNull(m.updatedUnix),
      closed: m.isClosed ? isoOrNull(m.closedDateUnix) : null, state: m.isClosed ? 'closed' : 'open',
    }));
  }

  /** Issues page by page, each page with its plain comments when `comments`. */
  async *issues(comments: boolean): AsyncGenerator<IssuePage<IssueDoc>> {
    await this.nameTables();
    for await (const rows of this.pages(false)) {
      const page = await this.pageOf(rows, comments, false);
      yield { docs: rows.map((r) => ({ ...page.common(r), ref: r.ref, is_locked: r.isLocked })), comments: page.comments, reviews: [] };
    }
  }

  /** Pull requests page by page, each page with its plain comments when `comments` and its reviews when `reviews`. */
  async *pullRequests(comments: boolean, reviews: boolean): AsyncGenerator<IssuePage<PullRequestDoc>> {
    await this.nameTables();
    for await (const rows of this.pages(true)) {
      const page = await this.pageOf(rows, comments, reviews);
      const pulls = await pullsOfIssues(this.ctx, rows.map((r) => r.id));
      const heads = await this.heads();
      const docs = rows.flatMap((r): PullRequestDoc[] => {
        const p = pulls.get(r.id);
        if (!p) return [];
        return [{
          ...page.common(r), is_locked: r.isLocked, merged: p.hasMerged, merged_time: p.hasMerged ? isoOrNull(p.mergedUnix) : null,
          merge_commit_sha: p.mergedCommitId || undefined, head: { ref: p.headBranch, sha: heads.get(Number(r.index)) ?? '' }, base: { ref: p.baseBranch, sha: p.mergeBase },
        }];
      });
      yield { docs, comments: page.comments, reviews: page.reviews };
    }
  }

  /** Releases (drafts included), each asset named `assetName(n)` in the dump. */
  async releases(assetName: (n: number) => string): Promise<{ docs: ReleaseDoc[]; files: AssetFile[] }> {
    const rows = await releasesOfRepo(this.ctx, this.repo.id);
    const assets = await listReleaseAttachments(this.ctx, rows.map((r) => r.id));
    const people = await this.people(rows.map((r) => r.publisherId));
    const files: AssetFile[] = [];
    const docs = rows.map((r): ReleaseDoc => {
      const who = this.person(people, r.publisherId, r);
      const mine = assets.filter((a) => a.releaseId === r.id).map((a) => {
        const doc: AssetDoc = { id: a.id, name: a.name, size: Number(a.size), download_count: a.downloadCount, created: a.createdAt.toISOString(), download_url: assetName(files.length + 1) };
        files.push({ doc, uuid: a.uuid });
        return doc;
      });
      return {
        tag_name: r.tagName, target_commitish: r.target, name: r.title, body: r.note, draft: r.isDraft, prerelease: r.isPrerelease,
        publisher_id: who.id, publisher_name: who.name, publisher_email: who.email, assets: mine, created: r.createdAt.toISOString(),
        published: r.isDraft ? null : r.createdAt.toISOString(),
      };
    });
    return { docs, files };
  }

  /** Read the labels and milestones once, which issues and pull requests name. */
  private nameTables(): Promise<unknown> {
    this.named ??= Promise.all([this.labels(), this.milestones()]);
    return this.named;
  }

  /** The repository's issue rows (or pull request rows), a page at a time. */
  private async *pages(isPull: boolean): AsyncGenerator<IssueModel[]> {
    for (let after = 0; ;) {
      const rows = await issuePageOfRepo(this.ctx, this.repo.id, isPull, after, PAGE);
      if (rows.length > 0) yield rows;
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1].id;
    }
  }

  /** The commit each pull request's head ref (refs/pull/N/head) points at, by number; read once. */
  private async heads(): Promise<Map<number, string>> {
    if (this.pullHeads) return this.pullHeads;
    const out = await runGit(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/pull/'], { gitDir: this.gitDir }).catch(() => null);
    this.pullHeads = new Map();
    for (const line of out?.stdout.toString().split('\n') ?? []) {
      const m = /^([0-9a-f]{40,64}) refs\/pull\/([0-9]+)\/head$/.exec(line);
      if (m) this.pullHeads.set(Number(m[2]), m[1]);
    }
    return this.pullHeads;
  }

  /** Users by id, in one query. */
  private async people(ids: number[]): Promise<Map<number, UserModel>> {
    return new Map((await findUsersByIds(this.ctx, [...new Set(ids)].filter((id) => id > 0))).map((u) => [u.id, u]));
  }

  /** The person of a row: its source's when it was migrated, else the local user (Ghost when deleted). */
  private person(users: Map<number, UserModel>, userId: number, row: Authored): Person {
    if (row.originalAuthor) return { id: Number(row.originalAuthorId), name: row.originalAuthor };
    const u = users.get(userId);
    return u ? { id: u.id, name: u.name, email: u.email || undefined } : { id: -1, name: 'Ghost' };
  }

  /** What the issues of a page share: labels, milestone, assignees, reactions, people; and their comments and reviews. */
  private async pageOf(rows: IssueModel[], withComments: boolean, withReviews: boolean) {
    const ids = rows.map((r) => r.id);
    const numbers = new Map(rows.map((r) => [r.id, Number(r.index)]));
    const [labelIds, assignees, plain, reactions, reviewRows] = await Promise.all([
      labelIdsOfIssues(this.ctx, ids), assigneeIdsOfIssues(this.ctx, ids), withComments ? commentsOfIssues(this.ctx, ids, [CommentType.Comment]) : [],
      reactionsOfIssues(this.ctx, ids), withReviews ? submittedReviewsOf(this.ctx, ids) : [],
    ]);
    const code = await commentsOfReviews(this.ctx, reviewRows.map((r) => r.id), [CommentType.Code]);
    // why: a label of the owner organization is not one of the repository's; it is read here so the issue still names it.
    const missing = [...labelIds.values()].flat().filter((id) => !this.labelRows.has(id));
    for (const l of await labelsByIds(this.ctx, [...new Set(missing)])) this.labelRows.set(l.id, l);
    const users = await this.people([
      ...rows.map((r) => r.posterId), ...[...assignees.values()].flat(), ...plain.map((c) => c.posterId), ...code.map((c) => c.posterId),
      ...reactions.map((r) => r.userId), ...reviewRows.map((r) => r.reviewerId),
    ]);
    const reactionsOf = new Map<string, ReactionDoc[]>();
    for (const r of reactions) {
      const who = this.person(users, r.userId, r);
      const key = `${r.issueId}:${r.commentId}`;
      reactionsOf.set(key, [...(reactionsOf.get(key) ?? []), { user_id: who.id, user_name: who.name, content: r.type }]);
    }
    const reacted = (issueId: number, commentId: number) => reactionsOf.get(`${issueId}:${commentId}`) ?? [];
    const poster = (row: CommentModel | IssueModel) => {
      const who = this.person(users, row.posterId, row);
      return { poster_id: who.id, poster_name: who.name, poster_email: who.email };
    };
    const positions = new Map<number, number>();
    const comments = plain.map((c): CommentDoc => {
      positions.set(c.issueId, (positions.get(c.issueId) ?? 0) + 1);
      return {
        issue_index: numbers.get(c.issueId)!, index: positions.get(c.issueId), comment_type: 'comment', ...poster(c), content: c.content,
        created: iso(c.createdUnix), updated: iso(c.updatedUnix), reactions: reacted(c.issueId, c.id),
      };
    });
    const reviews = reviewRows.map((r): ReviewDoc => {
      const who = this.person(users, r.reviewerId, r);
      const lines = code.filter((c) => c.reviewId === r.id).map((c): ReviewCommentDoc => ({
        id: c.id, content: c.content, tree_path: c.treePath, diff_hunk: c.patch, line: Number(c.line), commit_id: c.commitSha || undefined, ...poster(c),
        reactions: reacted(c.issueId, c.id), created_at: iso(c.createdUnix), updated_at: iso(c.updatedUnix),
      }));
      return {
        id: r.id, issue_index: numbers.get(r.issueId)!, reviewer_id: who.id, reviewer_name: who.name, reviewer_email: who.email, official: r.official,
        commit_id: r.commitId || undefined, content: r.content, created_at: iso(r.createdUnix), state: STATES[r.type]!, comments: lines,
      };
    });
    const common = (r: IssueModel) => ({
      number: Number(r.index), ...poster(r), title: r.name, content: r.content, milestone: this.milestoneNames.get(r.milestoneId),
      state: r.isClosed ? 'closed' as const : 'open' as const, created: iso(r.createdUnix), updated: iso(r.updatedUnix), closed: r.isClosed ? isoOrNull(r.closedUnix) : null,
      labels: (labelIds.get(r.id) ?? []).flatMap((id) => (this.labelRows.has(id) ? [labelDoc(this.labelRows.get(id)!)] : [])),
      reactions: reacted(r.id, 0), assignees: (assignees.get(r.id) ?? []).flatMap((id) => (users.has(id) ? [users.get(id)!.name] : [])),
    });
    return { common, comments, reviews };
  }
}

function labelDoc(l: LabelModel): LabelDoc {
  return { name: l.name, color: l.color, description: l.description, exclusive: l.exclusive, archived: Number(l.archivedUnix) > 0 };
}
