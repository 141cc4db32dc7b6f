/** Actions secrets and variables as Gitea's API shows and takes them (modules/structs/secret.go, variable.go). */

/** A secret: its value is never shown. */
export interface Secret { name: string; description: string; created_at: string }

/** A variable with its value; `owner_id` is 0 for a repository's, `repo_id` 0 for a user's or organization's. */
export interface ActionVariable { owner_id: number; repo_id: number; name: string; data: string; description: string }

/** The body of a secret's creation or change. */
export interface CreateOrUpdateSecretOption { data: string; description?: string }

/** The body of a variable's creation. */
export interface CreateVariableOption { value: string; description?: string }

/** The body of a variable's change; `name` renames it (empty: the name stays). */
export interface UpdateVariableOption { name?: string; value: string; description?: string }
