/**
 * [project] (Gitea's setting/project.go): the columns a new project board gets from its template,
 * after the default "Backlog" column.
 */
import { section } from './spec';

/** [project]: the column titles of the basic kanban and bug triage templates. */
export interface ProjectSettings { projectBoardBasicKanbanType: string[]; projectBoardBugTriageType: string[] }

/** [project]. */
export const projectSection = section<ProjectSettings>('project', {
  PROJECT_BOARD_BASIC_KANBAN_TYPE: { kind: 'list', def: 'To Do, In Progress, Done', keepCase: true },
  PROJECT_BOARD_BUG_TRIAGE_TYPE: { kind: 'list', def: 'Needs Triage, High Priority, Low Priority, Closed', keepCase: true },
});
