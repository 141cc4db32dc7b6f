/**
 * Cross references between issues (Gitea's models/issues/issue_xref.go): an issue's or pull
 * request's title and body, and a comment or review body, that name another issue leave an
 * `issue_ref`, `pull_ref` or `comment_ref` entry on it. The referenced issues are resolved before
 * the writing transaction (`resolveCrossRefs`: one query for the repositories, one for the issues,
 * the doer's permission once per repository); the entries are written in it (`writeCrossRefs`).
 * Editing the text neuters the entries it no longer makes and adds the new ones.
 */
import type { DbContext } from '../../db';
import { activeCrossRefs, CommentType, insertComments, neuterCrossRefs, type NewComment } from '../../models/comment.model';
import { findIssuesByRepoIndexes, touchIssues, type IssueKey } from '../../models/issue.model';
import { AccessMode } from '../../models/perm';
import { findReposByFullNames, findReposByIds, type RepositoryModel } from '../../models/repository.model';
import { findUsersByIds, type UserModel } from '../../models/user.model';
import { asUser } from '../auth/principal';
import { repoPermission, type RepoPermission } from '../perm/permission';
import { unitOf } from './access';
import { findIssueReferences, findIssueReferencesMarkdown, RefAction, type IssueReference } from './references';

/** A verified reference: the issue it names and what it asks of it. */
export interface CrossRef { issue: IssueKey; action: RefAction }

/** Where references are made: the referencing issue's repository and kind, and whether it is a comment. */
export interface RefOrigin { repoId: number; isPull: boolean; comment: boolean }

/** What `resolveReferences` found: the issues by "repoId#index", the doer's permission on the repositories asked for, each reference's repository. */
export interface Resolved { issues: Map<string, IssueKey>; perms: Map<number, RepoPermission>; repoOf: (r: IssueReference) => number | undefined }

/**
 * Resolve references to issues in a few queries (the repositories named, the issues, and for the
 * repositories `needsPerm` picks, their owners and the doer's permission). Gitea's
 * getCrossReferences and verifyReferencedIssue read these one reference at a time.
 */
export async function resolveReferences(
  ctx: DbContext, doer: UserModel, origRepoId: number, refs: IssueReference[], needsPerm: (issue: IssueKey) => boolean,
): Promise<Resolved> {
  const named = refs.filter((r) => r.owner);
  const found = await findReposByFullNames(ctx, named.map((r) => ({ owner: r.owner, name: r.name })));
  const byName = new Map(found.map((f) => [`${f.ownerName}/${f.repo.lowerName}`, f.repo]));
  const repoOf = (r: IssueReference) => (r.owner ? byName.get(`${r.owner}/${r.name}`)?.id : origRepoId);
  const pairs = refs.flatMap((r) => { const repoId = repoOf(r); return repoId ? [{ repoId, index: r.index }] : []; });
  const issues = new Map((await findIssuesByRepoIndexes(ctx, pairs)).map((i) => [`${i.repoId}#${i.index}`, i]));
  const repoIds = [...new Set([...issues.values()].filter(needsPerm).map((i) => i.repoId))];
  const known = new Map(found.map((f) => [f.repo.id, f.repo]));
  const repos: RepositoryModel[] = [...repoIds.flatMap((id) => known.get(id) ?? []), ...(await findReposByIds(ctx, repoIds.filter((id) => !known.has(id))))];
  const owners = new Map((await findUsersByIds(ctx, [...new Set(repos.map((r) => r.ownerId))])).map((u) => [u.id, u]));
  const perms = new Map<number, RepoPermission>();
  for (const repo of repos) {
    const owner = owners.get(repo.ownerId);
    if (owner) perms.set(repo.id, await repoPermission(ctx, asUser(doer), repo, owner));
  }
  return { issues, perms, repoOf };
}

/**
 * The issues a text references and the action each reference keeps (`title` read as plain text,
 * `body` as Markdown). As Gitea: only a pull request closes or reopens, and only issues; a
 * reference to another repository needs the doer to read its issues (or pull requests); an action
 * stays only when the doer could close the issue by hand (writer or its poster), except in a new
 * pull request's own text for an issue of its repository, where the merger answers for it.
 */
export async function resolveCrossRefs(ctx: DbContext, doer: UserModel, origin: RefOrigin, title: string, body: string, parsed?: IssueReference[]): Promise<CrossRef[]> {
  const refs = parsed ?? referencesIn(title, body);
  if (refs.length === 0) return [];
  const acting = new Set(refs.filter((r) => r.action !== RefAction.None).map((r) => r.index));
  // why: as Gitea, a plain reference within the repository needs no permission check (its reader reads both).
  const { issues, perms, repoOf } = await resolveReferences(ctx, doer, origin.repoId, refs, (i) => i.repoId !== origin.repoId || acting.has(Number(i.index)));
  const out: CrossRef[] = [];
  for (const ref of refs) {
    const issue = issues.get(`${repoOf(ref)}#${ref.index}`);
    if (!issue) continue;
    let action = issue.isPull || !origin.isPull ? RefAction.None : ref.action;
    if (issue.repoId !== origin.repoId || ref.action !== RefAction.None) {
      const perm = perms.get(issue.repoId);
      if (!perm?.can(unitOf(issue.isPull), AccessMode.Read)) continue;
      if (ref.action !== RefAction.None && doer.id !== issue.posterId && !perm.can(unitOf(issue.isPull), AccessMode.Write)
        && (issue.repoId !== origin.repoId || origin.comment)) action = RefAction.None;
    }
    // why: as Gitea's updateCrossReferenceList, one entry per issue; a later keyword wins over none.
    const seen = out.find((x) => x.issue.id === issue.id);
    if (seen) {
      if (action !== RefAction.None) seen.action = action;
    } else {
      out.push({ issue, action });
    }
  }
  return out;
}

/** The unverified references of a title (plain text) and a body (Markdown). */
export function referencesIn(title: string, body: string): IssueReference[] {
  return [...findIssueReferences(title), ...findIssueReferencesMarkdown(body)];
}

/** The issue (and comment, 0 for its own text) that makes references. */
export interface RefMaker { issueId: number; repoId: number; isPull: boolean; commentId: number }

/**
 * Write the reference entries of a text in the caller's transaction. With `replace` (an edit), the
 * entries the text made before and no longer makes are neutered, and those it still makes stay.
 */
export async function writeCrossRefs(tx: DbContext, doer: UserModel, maker: RefMaker, refs: CrossRef[], replace: boolean): Promise<void> {
  let wanted = refs.filter((r) => r.issue.id !== maker.issueId);
  if (replace) {
    const stale: number[] = [];
    for (const old of await activeCrossRefs(tx, maker.issueId, maker.commentId)) {
      const same = wanted.find((x) => x.issue.id === old.issueId && x.action === old.refAction);
      if (same) wanted = wanted.filter((x) => x !== same);
      else stale.push(old.id);
    }
    await neuterCrossRefs(tx, stale);
  }
  if (wanted.length === 0) return;
  const type = maker.commentId ? CommentType.CommentRef : maker.isPull ? CommentType.PullRef : CommentType.IssueRef;
  const rows: NewComment[] = wanted.map((x) => ({
    type, issueId: x.issue.id, posterId: doer.id, refRepoId: maker.repoId, refIssueId: maker.issueId, refCommentId: maker.commentId, refAction: x.action, refIsPull: maker.isPull,
  }));
  await insertComments(tx, rows);
  await touchIssues(tx, wanted.map((x) => x.issue.id));
}

/** Neuter every reference a deleted comment made (Gitea's DeleteComment). */
export async function neuterCommentRefs(tx: DbContext, issueId: number, commentId: number): Promise<void> {
  await neuterCrossRefs(tx, (await activeCrossRefs(tx, issueId, commentId)).map((c) => c.id));
}
