/** Actions secrets and variables in Gitea's API shapes. */
import type { ActionVariable, Secret } from '../api/actions';
import type { ActionVariableModel } from '../models/action-variable.model';
import type { SecretModel } from '../models/secret.model';
import { isoTime } from './time';

export function toSecret(s: SecretModel): Secret {
  return { name: s.name, description: s.description, created_at: isoTime(new Date(Number(s.createdUnix) * 1000)) };
}

export function toActionVariable(v: ActionVariableModel): ActionVariable {
  return { owner_id: v.ownerId, repo_id: v.repoId, name: v.name, data: v.data, description: v.description };
}
