/**
 * Writing migration documents (from a Gitea-compatible API or a dump) into a new repository:
 * labels, milestones, issues, comments, reactions and pull requests keep their source's numbers,
 * times and states. An author is the local user with the source's email address when there is one;
 * otherwise the row belongs to the user who migrates, and original_author / original_author_id
 * keep the source's name and id, as Gitea shows them. Rows go in by batches, each batch in one
 * transaction; counters and the keyword index are rebuilt once at the end (finish), not per row.
 * No notification, feed entry or webhook is made for what is imported.
 */
import type { Readable } from 'node:stream';
import { withTx, type DbContext } from '../../db';
import { runGit, gitRefused } from '../../git/run';
import type { UserModel } from '../../models/user.model';
import { findUsersByEmails } from '../../models/email-address.model';
import { CommentType } from '../../models/comment.model';
import { insertLabel } from '../../models/label.model';
import { insertMilestone } from '../../models/milestone.model';
import { insertPull, PullFlow, PullStatus } from '../../models/pull-request.model';
import {
  insertImportedComments, insertImportedIssues, insertImportedLabelLinks, insertImportedReactions, insertImportedReview, type ImportedAuthor, type ImportedIssue, type ImportedReaction,
} from '../../models/issue-import';
import { indexRepoTexts, recountRepoIssues } from '../../models/issue-rebuild';
import { queueCheck } from '../pull/check';
import { findReleaseByTag, insertRelease, saveRelease } from '../../models/release.model';
import { insertAttachment } from '../../models/attachment.model';
import { ReviewType } from '../../models/review.model';
import { settings } from '../../config';
import { storeUpload } from '../storage/attachment-store';
import type { AssetDoc, CommentDoc, IssueDoc, LabelDoc, MilestoneDoc, PullRequestDoc, ReactionDoc, ReleaseDoc, ReviewDoc } from './document-types';

const REVIEW_TYPES: Record<ReviewDoc['state'], ReviewType> = {
  PENDING: ReviewType.Pending, APPROVED: ReviewType.Approve, COMMENTED: ReviewType.Comment, CHANGES_REQUESTED: ReviewType.Reject, REQUEST_REVIEW: ReviewType.Request,
};

const unix = (t: string | null | undefined) => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);
const color = (c: string | undefined) => (/^#?[0-9a-fA-F]{6}$/.test(c ?? '') ? `#${c!.replace(/^#/, '').toLowerCase()}` : '#ffffff');

/** One repository's import. */
export class Importer {
  private readonly labels = new Map<string, number>();
  private readonly milestones = new Map<string, number>();
  private readonly issueIds = new Map<number, number>();
  private readonly byEmail = new Map<string, UserModel>();

  constructor(private readonly ctx: DbContext, private readonly repoId: number, private readonly doer: UserModel, private readonly gitDir: string) {}

  /** Learn which source authors are local users, by the email addresses the documents carry. */
  private async learnAuthors(emails: (string | undefined)[]): Promise<void> {
    const wanted = [...new Set(emails.filter((e): e is string => !!e).map((e) => e.toLowerCase()))].filter((e) => !this.byEmail.has(e));
    if (wanted.length === 0) return;
    for (const [email, u] of await findUsersByEmails(this.ctx, wanted)) this.byEmail.set(email, u);
  }

  /** The row's author: the local user of that email, else the doer with the source's name and id. */
  private author(id: number, name: string, email?: string): ImportedAuthor {
    const local = email ? this.byEmail.get(email.toLowerCase()) : undefined;
    return local ? { posterId: local.id, originalAuthor: '', originalAuthorId: 0 } : { posterId: this.doer.id, originalAuthor: name, originalAuthorId: id };
  }

  private reactions(list: ReactionDoc[] | undefined, issueId: number, commentId: number, createdUnix: number): ImportedReaction[] {
    // why: a reaction carries no email; it is the source user's, kept by name, on behalf of the doer.
    return (list ?? []).map((r) => ({ issueId, commentId, userId: this.doer.id, type: r.content, originalAuthor: r.user_name ?? '', originalAuthorId: r.user_id, createdUnix }));
  }

  /** Import labels. */
  async importLabels(docs: LabelDoc[]): Promise<void> {
    await withTx(this.ctx, async (tx) => {
      for (const l of docs) {
        if (this.labels.has(l.name)) continue;
        const row = await insertLabel(tx, { repoId: this.repoId }, { name: l.name, color: color(l.color), description: l.description ?? '', exclusive: !!l.exclusive, archivedUnix: l.archived ? Math.floor(Date.now() / 1000) : 0 });
        this.labels.set(l.name, row.id);
      }
    });
  }

  /** Import milestones. */
  async importMilestones(docs: MilestoneDoc[]): Promise<void> {
    await withTx(this.ctx, async (tx) => {
      for (const m of docs) {
        if (this.milestones.has(m.title)) continue;
        const row = await insertMilestone(tx, this.repoId, {
          name: m.title, content: m.description ?? '', isClosed: m.state === 'closed', deadlineUnix: unix(m.deadline), closedDateUnix: unix(m.closed),
        });
        this.milestones.set(m.title, row.id);
      }
    });
  }

  private issueRow(d: IssueDoc | PullRequestDoc, isPull: boolean): ImportedIssue {
    return {
      repoId: this.repoId, index: d.number, ...this.author(d.poster_id, d.poster_name, d.poster_email), name: d.title.slice(0, 255), content: d.content,
      milestoneId: (d.milestone && this.milestones.get(d.milestone)) || 0, isPull, ref: isPull ? '' : (d as IssueDoc).ref ?? '', isClosed: d.state === 'closed',
      isLocked: !!d.is_locked, createdUnix: unix(d.created), updatedUnix: unix(d.updated), closedUnix: unix(d.closed),
    };
  }

  /** Insert issue rows with their labels and reactions; answers their ids by number. */
  private async insertIssues(tx: DbContext, docs: (IssueDoc | PullRequestDoc)[], isPull: boolean): Promise<Map<number, number>> {
    const fresh = docs.filter((d) => !this.issueIds.has(d.number));
    const ids = await insertImportedIssues(tx, fresh.map((d) => this.issueRow(d, isPull)));
    for (const [n, id] of ids) this.issueIds.set(n, id);
    await insertImportedLabelLinks(tx, fresh.flatMap((d) => (d.labels ?? []).map((l) => this.labels.get(l.name)).filter((l): l is number => !!l).map((labelId) => ({ issueId: ids.get(d.number)!, labelId }))));
    await insertImportedReactions(tx, fresh.flatMap((d) => this.reactions(d.reactions, ids.get(d.number)!, 0, unix(d.created))));
    return ids;
  }

  /** Import a batch of issues. */
  async importIssues(docs: IssueDoc[]): Promise<void> {
    await this.learnAuthors(docs.map((d) => d.poster_email));
    await withTx(this.ctx, (tx) => this.insertIssues(tx, docs, false));
  }

  /** Import a batch of comments (of issues or pull requests already imported; others are skipped). */
  async importComments(docs: CommentDoc[]): Promise<void> {
    await this.learnAuthors(docs.map((d) => d.poster_email));
    const known = docs.filter((d) => this.issueIds.has(d.issue_index));
    await withTx(this.ctx, async (tx) => {
      const ids = await insertImportedComments(tx, known.map((d) => ({
        issueId: this.issueIds.get(d.issue_index)!, type: CommentType.Comment, content: d.content, ...this.author(d.poster_id, d.poster_name, d.poster_email),
        createdUnix: unix(d.created), updatedUnix: unix(d.updated),
      })), (i) => (known[i].reactions ?? []).length > 0);
      await insertImportedReactions(tx, known.flatMap((d, i) => this.reactions(d.reactions, this.issueIds.get(d.issue_index)!, ids[i], unix(d.created))));
    });
  }

  /**
   * Import a batch of pull requests: each an issue with its pull request row, and refs/pull/N/head
   * set to its head commit when the clone brought that commit (a head from another server is not
   * fetched). Open ones are checked again by the pull request service later.
   */
  async importPullRequests(docs: PullRequestDoc[]): Promise<void> {
    await this.learnAuthors(docs.map((d) => d.poster_email));
    const present = new Set<string>();
    for (const d of docs) {
      const sha = /^[0-9a-f]{40}$/.test(d.head.sha) ? d.head.sha : '';
      if (sha && (await runGit(['cat-file', '-e', `${sha}^{commit}`], { gitDir: this.gitDir }).then(() => true, gitRefused))) present.add(sha);
    }
    await withTx(this.ctx, async (tx) => {
      const ids = await this.insertIssues(tx, docs, true);
      for (const d of docs) {
        const issueId = ids.get(d.number);
        if (!issueId) continue;
        // why: an open pull request is checked again here (its status starts as Checking); a closed one keeps what it was.
        const row = await insertPull(tx, {
          issueId, index: d.number, flow: PullFlow.GitHub, status: d.state === 'open' ? PullStatus.Checking : PullStatus.Mergeable, headRepoId: this.repoId,
          baseRepoId: this.repoId, headBranch: d.head.ref, baseBranch: d.base.ref, mergeBase: /^[0-9a-f]{40}$/.test(d.base.sha) ? d.base.sha : '',
          hasMerged: d.merged, mergedCommitId: d.merged ? d.merge_commit_sha ?? '' : '', mergerId: d.merged ? this.doer.id : 0, mergedUnix: d.merged ? unix(d.merged_time) : 0,
        });
        if (d.state === 'open') await queueCheck(tx, row);
      }
    });
    for (const d of docs) if (present.has(d.head.sha)) await runGit(['update-ref', `refs/pull/${d.number}/head`, d.head.sha], { gitDir: this.gitDir });
  }

  /**
   * Import the reviews of a pull request already imported: the review (its verdict, summary and
   * commit), its entry in the timeline, and its line comments as conversations on their files.
   */
  async importReviews(docs: ReviewDoc[]): Promise<void> {
    const known = docs.filter((d) => this.issueIds.has(d.issue_index) && d.state !== 'PENDING');
    await this.learnAuthors(known.flatMap((d) => [d.reviewer_email, ...(d.comments ?? []).map((c) => c.poster_email)]));
    await withTx(this.ctx, async (tx) => {
      for (const d of known) {
        const issueId = this.issueIds.get(d.issue_index)!;
        const who = this.author(d.reviewer_id, d.reviewer_name, d.reviewer_email);
        const created = unix(d.created_at);
        const review = await insertImportedReview(tx, {
          type: REVIEW_TYPES[d.state], issueId, reviewerId: who.posterId, content: d.content ?? '', official: !!d.official, commitId: d.commit_id ?? '',
          originalAuthor: who.originalAuthor, originalAuthorId: who.originalAuthorId, createdUnix: created, updatedUnix: created,
        });
        const rows = [{ issueId, type: CommentType.Review, content: d.content ?? '', reviewId: review.id, ...who, createdUnix: created, updatedUnix: created },
          ...(d.comments ?? []).map((c) => ({
            issueId, type: CommentType.Code, content: c.content, reviewId: review.id, treePath: c.tree_path, line: Number(c.line ?? 0), patch: c.diff_hunk ?? '',
            commitSha: /^[0-9a-f]{40}$/.test(c.commit_id ?? '') ? c.commit_id! : '', ...this.author(c.poster_id, c.poster_name ?? '', c.poster_email), createdUnix: unix(c.created_at),
            updatedUnix: unix(c.updated_at ?? c.created_at),
          }))];
        await insertImportedComments(tx, rows);
      }
    });
  }

  /**
   * Import releases: a tag the clone brought becomes the release (its tag-only row takes the
   * release's text); a draft without a tag is added. `asset` gives an asset's bytes, or null to skip it.
   */
  async importReleases(docs: ReleaseDoc[], asset: (a: AssetDoc) => Promise<Readable | null>): Promise<void> {
    await this.learnAuthors(docs.map((d) => d.publisher_email));
    for (const d of docs) {
      const who = this.author(d.publisher_id, d.publisher_name, d.publisher_email);
      const releaseId = await withTx(this.ctx, async (tx) => {
        const fields = {
          publisherId: who.posterId, originalAuthor: who.originalAuthor, originalAuthorId: who.originalAuthorId, target: d.target_commitish ?? '',
          title: d.name ?? '', note: d.body ?? '', isDraft: !!d.draft, isPrerelease: !!d.prerelease, isTag: false,
        };
        const tagged = await findReleaseByTag(tx, this.repoId, d.tag_name);
        if (tagged) {
          Object.assign(tagged, fields);
          await saveRelease(tx, tagged);
          return tagged.id;
        }
        return (await insertRelease(tx, this.repoId, { ...fields, tagName: d.tag_name, sha1: '' })).id;
      });
      for (const a of d.assets ?? []) {
        const bytes = await asset(a);
        if (!bytes) continue;
        const stored = await storeUpload(bytes, a.name, { maxBytes: settings().attachment.maxSize * 1024 * 1024, allowedTypes: '' });
        await withTx(this.ctx, (tx) => insertAttachment(tx, { uuid: stored.uuid, repoId: this.repoId, releaseId, uploaderId: who.posterId, name: a.name, size: stored.size }));
      }
    }
  }

  /** Rebuild the repository's counters and keyword index once everything is in. */
  async finish(): Promise<void> {
    await withTx(this.ctx, async (tx) => {
      await recountRepoIssues(tx, this.repoId);
      await indexRepoTexts(tx, this.repoId);
    });
  }
}
