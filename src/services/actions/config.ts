/** The Actions settings of a repository, from its Actions unit and [actions] ENABLED. */
import { settings } from '../../config';
import type { DbContext } from '../../db';
import { unitConfigOf } from '../../models/repo-unit.model';
import { UnitType } from '../../models/perm';

/** The Actions settings of a repository: whether its Actions unit is on, and its disabled workflows. */
export async function actionsConfig(ctx: DbContext, repoId: number): Promise<{ enabled: boolean; disabled: string[] }> {
  const text = await unitConfigOf(ctx, repoId, UnitType.Actions);
  if (text === null || !settings().actions.enabled) return { enabled: false, disabled: [] };
  try {
    const list = (JSON.parse(text || '{}') as { DisabledWorkflows?: unknown }).DisabledWorkflows;
    return { enabled: true, disabled: Array.isArray(list) ? list.map(String) : [] };
  } catch {
    return { enabled: true, disabled: [] };
  }
}
