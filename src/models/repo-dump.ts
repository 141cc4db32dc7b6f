/**
 * The reads of `forge dump-repo`: a repository's issues, comments, reactions, reviews and releases
 * in bulk (a page of issues at a time, one query per table per page), and the administrator a
 * `forge restore-repo` works as.
 */
import { Op } from 'sequelize';
import type { DbContext } from '../db';
import { IssueModel } from './issue.model';
import { CommentModel, type CommentType } from './comment.model';
import { ReactionModel } from './reaction.model';
import { ReviewModel, ReviewType } from './review.model';
import { ReleaseModel } from './release.model';
import { UserModel, UserType } from './user.model';

/** Up to `limit` issues (or pull requests) of a repository with an id above `afterId`, by id. */
export function issuePageOfRepo(ctx: DbContext, repoId: number, isPull: boolean, afterId: number, limit: number): Promise<IssueModel[]> {
  return IssueModel.findAll({ where: { repoId, isPull, id: { [Op.gt]: afterId } }, order: [['id', 'ASC']], limit, transaction: ctx.tx });
}

/** The comments of these types on these issues, oldest first. */
export function commentsOfIssues(ctx: DbContext, issueIds: number[], types: CommentType[]): Promise<CommentModel[]> {
  if (issueIds.length === 0) return Promise.resolve([]);
  return CommentModel.findAll({
    where: { issueId: { [Op.in]: issueIds }, type: { [Op.in]: types } }, order: [['createdUnix', 'ASC'], ['id', 'ASC']], transaction: ctx.tx,
  });
}

/** Every reaction on these issues and on their comments, oldest first. */
export function reactionsOfIssues(ctx: DbContext, issueIds: number[]): Promise<ReactionModel[]> {
  if (issueIds.length === 0) return Promise.resolve([]);
  return ReactionModel.findAll({ where: { issueId: { [Op.in]: issueIds } }, order: [['createdUnix', 'ASC'], ['id', 'ASC']], transaction: ctx.tx });
}

/** The submitted reviews (approvals, change requests, comments) of these pull requests' issues, oldest first. */
export function submittedReviewsOf(ctx: DbContext, issueIds: number[]): Promise<ReviewModel[]> {
  if (issueIds.length === 0) return Promise.resolve([]);
  return ReviewModel.findAll({
    where: { issueId: { [Op.in]: issueIds }, type: { [Op.in]: [ReviewType.Approve, ReviewType.Reject, ReviewType.Comment] } },
    order: [['createdUnix', 'ASC'], ['id', 'ASC']], transaction: ctx.tx,
  });
}

/** A repository's releases, drafts included (not the rows that stand for a bare tag), oldest first. */
export function releasesOfRepo(ctx: DbContext, repoId: number): Promise<ReleaseModel[]> {
  return ReleaseModel.findAll({ where: { repoId, isTag: false }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** The first site administrator (the lowest id), or null. */
export function firstSiteAdmin(ctx: DbContext): Promise<UserModel | null> {
  return UserModel.findOne({ where: { isAdmin: true, type: UserType.Individual }, order: [['id', 'ASC']], transaction: ctx.tx });
}
