/**
 * Access modes and repository unit types, numbered as in Gitea's database.
 */
export enum AccessMode { None = 0, Read = 1, Write = 2, Admin = 3, Owner = 4 }

/** Names of access modes in the API. */
export const ACCESS_MODE_NAMES: Record<AccessMode, string> = {
  [AccessMode.None]: 'none', [AccessMode.Read]: 'read', [AccessMode.Write]: 'write', [AccessMode.Admin]: 'admin', [AccessMode.Owner]: 'owner',
};

/** Parse an API access mode name; undefined for anything else. */
export function parseAccessMode(name: string): AccessMode | undefined {
  const hit = Object.entries(ACCESS_MODE_NAMES).find(([, n]) => n === name);
  return hit ? (Number(hit[0]) as AccessMode) : undefined;
}

export enum UnitType { Code = 1, Issues = 2, PullRequests = 3, Releases = 4, Wiki = 5, ExternalWiki = 6, ExternalTracker = 7, Projects = 8, Packages = 9, Actions = 10 }

/** Unit keys as the team API names them (`units`, `units_map`). */
export const UNIT_KEYS: Record<UnitType, string> = {
  [UnitType.Code]: 'repo.code', [UnitType.Issues]: 'repo.issues', [UnitType.PullRequests]: 'repo.pulls',
  [UnitType.Releases]: 'repo.releases', [UnitType.Wiki]: 'repo.wiki', [UnitType.ExternalWiki]: 'repo.ext_wiki',
  [UnitType.ExternalTracker]: 'repo.ext_issues', [UnitType.Projects]: 'repo.projects', [UnitType.Packages]: 'repo.packages',
  [UnitType.Actions]: 'repo.actions',
};

/** Every unit type, in order. */
export const ALL_UNITS: UnitType[] = Object.keys(UNIT_KEYS).map(Number) as UnitType[];

/** Unit type for an API key such as `repo.code`. */
export function unitFromKey(key: string): UnitType | undefined {
  const hit = Object.entries(UNIT_KEYS).find(([, k]) => k === key);
  return hit ? (Number(hit[0]) as UnitType) : undefined;
}
