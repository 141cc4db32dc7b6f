/**
 * Projects of a repository or an owner (Gitea's models/project and routers/web/shared/project): the
 * list with its open and closed tabs, a new project with its template's columns, editing, closing,
 * reopening and deleting. Every change asks the scope's writer rule first (./access.ts) and
 * refuses bad input before it writes.
 */
import { withTx, type DbContext } from '../../db';
import { NotFound, Validation } from '../../errors';
import { settings } from '../../config';
import { insertColumns } from '../../models/project-board.model';
import { cardCountsOf, cardRepoIdsOf } from '../../models/project-issue.model';
import {
  countProjectsByState, deleteProjectRows, findProject, insertProject, listProjects, PROJECT_SORTS, ProjectTemplate, ProjectType, saveProject,
  type ProjectModel,
} from '../../models/project.model';
import { nowUnix } from '../../models/issue.model';
import { UserType, type UserModel } from '../../models/user.model';
import type { Principal } from '../auth/principal';
import { assertProjectWriter, readableCardRepos, type ProjectScope } from './access';

/** The templates a new project may start from, with their names (Gitea's GetTemplateConfigs). */
export const PROJECT_TEMPLATES: [ProjectTemplate, string][] = [
  [ProjectTemplate.None, 'None'], [ProjectTemplate.BasicKanban, 'Basic kanban'], [ProjectTemplate.BugTriage, 'Bug triage'],
];

/** The sort orders the list offers. */
export type ProjectSort = keyof typeof PROJECT_SORTS;

/** Is `s` a sort order of the list? */
export function isProjectSort(s: unknown): s is ProjectSort {
  return typeof s === 'string' && Object.hasOwn(PROJECT_SORTS, s);
}

/** What the form sends for a project. */
export interface ProjectForm { title: string; description: string; template?: number }

/** The title and description of a form, checked (Gitea's CreateProjectForm: a title of at most 255 characters). */
function checkedForm(f: ProjectForm): { title: string; description: string } {
  const title = (f.title ?? '').trim();
  if (!title) throw new Validation('A project needs a title.');
  if ([...title].length > 255) throw new Validation('A project title is at most 255 characters long.');
  return { title, description: f.description ?? '' };
}

/** The columns a template gives a new project: a default column first, then the template's (Gitea's createDefaultColumnsForProject). */
function templateColumns(template: ProjectTemplate): { title: string; isDefault: boolean }[] {
  const p = settings().project;
  // why: Gitea creates a template-less project's default column ("Uncategorized") when its board is
  // first shown; it is made with the project here, so showing a board never writes.
  if (template === ProjectTemplate.None) return [{ title: 'Uncategorized', isDefault: true }];
  const rest = template === ProjectTemplate.BasicKanban ? p.projectBoardBasicKanbanType : p.projectBoardBugTriageType;
  return [{ title: 'Backlog', isDefault: true }, ...rest.map((title) => ({ title, isDefault: false }))];
}

/** Create a project in `scope` with its template's columns. */
export async function createProject(ctx: DbContext, doer: UserModel, scope: ProjectScope, f: ProjectForm): Promise<ProjectModel> {
  assertProjectWriter(scope);
  const { title, description } = checkedForm(f);
  const template = Number(f.template ?? 0) as ProjectTemplate;
  if (!PROJECT_TEMPLATES.some(([t]) => t === template)) throw new Validation('Choose one of the project templates.');
  const type = scope.rc ? ProjectType.Repository : scope.owner.type === UserType.Organization ? ProjectType.Organization : ProjectType.Individual;
  // why: the project and its columns are one change; a board is never seen without its default column.
  return withTx(ctx, async (tx) => {
    const project = await insertProject(tx, {
      title, description, creatorId: doer.id, templateType: template, type, repoId: scope.rc?.repo.id ?? 0, ownerId: scope.rc ? 0 : scope.owner.id,
    });
    await insertColumns(tx, templateColumns(template).map((c, k) => ({ projectId: project.id, title: c.title, color: '', isDefault: c.isDefault, sorting: k, creatorId: doer.id })));
    return project;
  });
}

/** A project of `scope` by id; 404 when it has none. */
export async function getProject(ctx: DbContext, scope: ProjectScope, id: number): Promise<ProjectModel> {
  const project = await findProject(ctx, scope.place, id);
  if (!project) throw new NotFound(`project does not exist [id: ${id}]`);
  return project;
}

/** Change a project's title and description. */
export async function editProject(ctx: DbContext, scope: ProjectScope, id: number, f: ProjectForm): Promise<ProjectModel> {
  assertProjectWriter(scope);
  const { title, description } = checkedForm(f);
  const project = await getProject(ctx, scope, id);
  project.title = title;
  project.description = description;
  await saveProject(ctx, project);
  return project;
}

/** Close or reopen a project. */
export async function setProjectClosed(ctx: DbContext, scope: ProjectScope, id: number, closed: boolean): Promise<void> {
  assertProjectWriter(scope);
  const project = await getProject(ctx, scope, id);
  if (project.isClosed === closed) return;
  project.isClosed = closed;
  project.closedDateUnix = closed ? nowUnix() : 0;
  await saveProject(ctx, project);
}

/** Delete a project with its columns and cards (the issues stay, off the board). */
export async function deleteProject(ctx: DbContext, scope: ProjectScope, id: number): Promise<void> {
  assertProjectWriter(scope);
  const project = await getProject(ctx, scope, id);
  // why: the cards, the columns and the project go together or not at all.
  await withTx(ctx, (tx) => deleteProjectRows(tx, [project.id]));
}

/** A list page's question. */
export interface ProjectListQuery { closed: boolean; keyword: string; sort: ProjectSort; limit: number; offset: number }

/** One page of a scope's projects with their open and closed cards, and the number of open and closed projects. */
export interface ProjectList {
  rows: ProjectModel[]; total: number; open: number; closed: number;
  cards: Map<number, { open: number; closed: number }>;
}

/**
 * One page of the projects of `scope`. The card counts of an owner's projects count only the
 * issues of repositories the caller may read, so a private repository's cards are not even counted.
 */
export async function listProjectsOf(ctx: DbContext, p: Principal, scope: ProjectScope, q: ProjectListQuery): Promise<ProjectList> {
  const { rows, count } = await listProjects(ctx, scope.place, { isClosed: q.closed, keyword: q.keyword || undefined, sort: q.sort, limit: q.limit, offset: q.offset });
  const tabs = await countProjectsByState(ctx, scope.place, q.keyword || undefined);
  const ids = rows.map((r) => r.id);
  let readable: number[] | undefined;
  if (!scope.rc) readable = [...(await readableCardRepos(ctx, p, scope, await cardRepoIdsOf(ctx, ids))).keys()];
  return { rows, total: count, open: tabs.open, closed: tabs.closed, cards: await cardCountsOf(ctx, ids, readable) };
}
