/**
 * An issue's project, from its sidebar (Gitea's UpdateIssueProject and IssueAssignOrRemoveProject):
 * the projects it may join (the repository's and its owner's, as the projects unit's mode allows,
 * open and closed), with their columns; putting it on one (in a chosen column, or the default one),
 * moving it to another column, or taking it off. Writers of the issue's unit who may read the
 * repository's projects do it; each change writes its `project` or `project_board` timeline entry in
 * the same transaction. As in Gitea 1.24 an issue is on at most one project.
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, Validation } from '../../errors';
import { CommentType } from '../../models/comment.model';
import { lockIssue } from '../../models/issue.model';
import { AccessMode, UnitType } from '../../models/perm';
import { columnsOf, columnsOfProjects, findColumn, type ProjectBoardModel } from '../../models/project-board.model';
import { appendCard, cardOfIssue, insertCard, removeCardsOfIssue } from '../../models/project-issue.model';
import { findProjectById, listProjects, projectsByIds, ProjectType, type ProjectModel } from '../../models/project.model';
import type { UserModel } from '../../models/user.model';
import { assertIssueWriter, readableIssue } from '../issue/access';
import { record } from '../issue/history';
import type { RepoContext } from '../repo/context';
import { projectsAllowed, projectsModeOf } from './access';

/** A project an issue may join, with its columns. */
export interface ProjectChoice { project: ProjectModel; columns: ProjectBoardModel[]; owner: boolean }

/** What the sidebar shows of an issue's project. */
export interface IssueProjectView {
  /** The project the issue is on and its column, or null; `joinable` is false when the repository's mode no longer offers it. */
  current: { project: ProjectModel; column: ProjectBoardModel | null; owner: boolean; joinable: boolean } | null;
  /** The projects it may join (writers only), or null. */
  choices: ProjectChoice[] | null;
}

/** May the caller see projects in this repository at all (the Projects unit readable, the mode not `none`)? */
async function projectsShown(ctx: DbContext, rc: RepoContext): Promise<{ repo: boolean; owner: boolean }> {
  const mode = rc.perm.can(UnitType.Projects, AccessMode.Read) ? await projectsModeOf(ctx, rc.repo.id) : null;
  return { repo: projectsAllowed(mode, 'repo'), owner: projectsAllowed(mode, 'owner') };
}

/** Is `project` one issues of `rc` may join under the repository's mode (Gitea's CanBeAccessedByOwnerRepo)? */
function joinable(project: ProjectModel, rc: RepoContext, shown: { repo: boolean; owner: boolean }): boolean {
  if (project.type === ProjectType.Repository) return shown.repo && project.repoId === rc.repo.id;
  return shown.owner && project.repoId === 0 && project.ownerId === rc.repo.ownerId;
}

/** The sidebar's project of issue `index`: the current one, and the choices when `canEdit`. Null when projects are not shown. */
export async function issueProjectView(ctx: DbContext, rc: RepoContext, issueId: number, canEdit: boolean): Promise<IssueProjectView | null> {
  const shown = await projectsShown(ctx, rc);
  if (!shown.repo && !shown.owner) return null;
  const card = await cardOfIssue(ctx, issueId);
  const project = card ? await findProjectById(ctx, card.projectId) : null;
  const column = card && project ? await findColumn(ctx, project.id, card.columnId) : null;
  const current = project ? { project, column, owner: project.type !== ProjectType.Repository, joinable: joinable(project, rc, shown) } : null;
  if (!canEdit) return { current, choices: null };
  const all = [
    ...(shown.repo ? (await listProjects(ctx, { repoId: rc.repo.id }, { sort: 'oldest' })).rows : []),
    ...(shown.owner ? (await listProjects(ctx, { ownerId: rc.repo.ownerId }, { sort: 'oldest' })).rows : []),
  ];
  // why: open projects first, as Gitea's selector lists them above the closed ones.
  all.sort((a, b) => Number(Boolean(a.isClosed)) - Number(Boolean(b.isClosed)));
  const columns = await columnsOfProjects(ctx, all.map((x) => x.id));
  return { current, choices: all.map((x) => ({ project: x, columns: columns.get(x.id) ?? [], owner: x.type !== ProjectType.Repository })) };
}

/**
 * Put issue `index` on project `projectId` (in `columnId`, or its default column when 0), move it
 * to `columnId` when it is on that project already, or take it off every project (`projectId` 0).
 */
export async function setIssueProject(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, projectId: number, columnId: number): Promise<void> {
  const found = await readableIssue(ctx, rc, index);
  assertIssueWriter(rc, found);
  const shown = await projectsShown(ctx, rc);
  if (!shown.repo && !shown.owner) throw new Forbidden('projects are not enabled for this repository');
  let target: { project: ProjectModel; column: ProjectBoardModel } | null = null;
  if (projectId !== 0) {
    const project = await findProjectById(ctx, projectId);
    if (!project || !joinable(project, rc, shown)) throw new Validation(`project does not exist [id: ${projectId}]`);
    const columns = await columnsOf(ctx, project.id);
    const column = columnId ? columns.find((c) => c.id === columnId) : columns.find((c) => c.default) ?? columns[0];
    if (!column) throw new Validation(columnId ? `project column does not exist [id: ${columnId}]` : 'the project has no column');
    target = { project, column };
  }
  // why: the issue's row is locked first, so two changes of its project run one after the other and
  // each reads where the other left the card.
  await withTx(ctx, async (tx) => {
    const issue = await lockIssue(tx, found.id);
    if (!issue) return;
    const card = await cardOfIssue(tx, issue.id);
    if (target && card?.projectId === target.project.id) {
      if (!columnId || card.columnId === target.column.id) return;
      await appendCard(tx, target.project.id, target.column.id, issue.id);
      const meta = JSON.stringify({ ProjectColumnID: target.column.id, ProjectColumnTitle: target.column.title, ProjectTitle: target.project.title });
      await record(tx, { type: CommentType.ProjectColumn, issueId: issue.id, posterId: doer.id, projectId: target.project.id, commentMetaData: meta });
      return;
    }
    if (!target && !card) return;
    await removeCardsOfIssue(tx, issue.id);
    await record(tx, { type: CommentType.Project, issueId: issue.id, posterId: doer.id, oldProjectId: card?.projectId ?? 0, projectId: target?.project.id ?? 0 });
    if (target) await insertCard(tx, target.project.id, target.column.id, issue.id);
  });
}

/** The projects a timeline names (its `project` and `project_board` entries), by id. */
export async function timelineProjects(ctx: DbContext, ids: number[]): Promise<Map<number, ProjectModel>> {
  return new Map((await projectsByIds(ctx, ids)).map((x) => [x.id, x]));
}
