/** What nodeinfo tells of an instance's use: its people, their recent sign-ins, its issues and comments. */
import { Op } from 'sequelize';
import type { DbContext } from '../db';
import { UserModel, UserType } from './user.model';
import { IssueModel } from './issue.model';
import { CommentModel, CommentType } from './comment.model';

/** Counts of individual users (all, signed in since `monthAgo` and since `halfYearAgo`), of issues and pull requests, and of plain comments. */
export interface InstanceUsage { users: number; activeMonth: number; activeHalfyear: number; posts: number; comments: number }

/** Count them (five indexed or whole-table counts). */
export async function instanceUsage(ctx: DbContext, monthAgo: Date, halfYearAgo: Date): Promise<InstanceUsage> {
  const people = (since?: Date) => UserModel.count({
    where: { type: UserType.Individual, ...(since ? { lastLoginAt: { [Op.gte]: since } } : {}) }, transaction: ctx.tx,
  });
  const [users, activeMonth, activeHalfyear, posts, comments] = await Promise.all([
    people(), people(monthAgo), people(halfYearAgo), IssueModel.count({ transaction: ctx.tx }),
    CommentModel.count({ where: { type: CommentType.Comment }, transaction: ctx.tx }),
  ]);
  return { users, activeMonth, activeHalfyear, posts, comments };
}
