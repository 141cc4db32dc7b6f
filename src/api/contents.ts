/**
 * Repository files and git objects as Gitea's API shows and takes them (modules/structs repo_file.go,
 * git_blob.go, repo_tree.go, repo_refs.go, repo_tag.go): contents, file change options and
 * responses, blobs, trees, refs and annotated tags.
 */
import type { CommitMeta, CommitUser, PayloadCommitVerification } from './commit';

export type { CommitMeta, CommitUser, PayloadCommitVerification, PayloadUser } from './commit';

/** Name and email of a commit's author or committer. */
export interface Identity {
  name?: string;
  email?: string;
}

/** Dates of the commit (RFC 3339); omitted ones are now. */
export interface CommitDateOptions {
  author?: string;
  committer?: string;
}

/** Options shared by every file change. */
export interface FileOptions {
  /** Commit message; Gitea's default ("Add x", "Update x", "Delete x") when empty. */
  message?: string;
  /** Branch to base the change on (default branch when empty). */
  branch?: string;
  /** Branch to create with the change (must not exist). */
  new_branch?: string;
  author?: Identity;
  committer?: Identity;
  dates?: CommitDateOptions;
  /** Add a Signed-off-by trailer of the committer. */
  signoff?: boolean;
}

/** Create one file. */
export interface CreateFileOptions extends FileOptions {
  /** The content, base64 encoded. */
  content: string;
}

/** Update (and optionally move) one file. */
export interface UpdateFileOptions extends FileOptions {
  /** The content, base64 encoded. */
  content: string;
  /** The blob id of the file being replaced. */
  sha: string;
  /** Where the file was; it moves to the path in the URL. */
  from_path?: string;
}

/** Delete one file. */
export interface DeleteFileOptions extends FileOptions {
  /** The blob id of the file being deleted. */
  sha: string;
}

/** One operation of a multi-file change. */
export interface ChangeFileOperation {
  /** create, update, upload (create or update), rename or delete. */
  operation: 'create' | 'update' | 'upload' | 'rename' | 'delete';
  path: string;
  /** The content, base64 encoded (create, update, upload; optional for rename). */
  content?: string;
  /** The blob id of the file being changed (update, rename, delete). */
  sha?: string;
  /** The old path of a moved file. */
  from_path?: string;
}

/** Change several files in one commit. */
export interface ChangeFilesOptions extends FileOptions {
  files: ChangeFileOperation[];
}

/** Links of one entry. */
export interface FileLinksResponse {
  self: string | null;
  git: string | null;
  html: string | null;
}

/** A file, directory, symlink or submodule of a tree, with its content for single files. */
export interface ContentsResponse {
  name: string;
  path: string;
  sha: string;
  last_commit_sha: string;
  last_committer_date: string;
  last_author_date: string;
  /** file, dir, symlink or submodule */
  type: string;
  size: number;
  encoding: string | null;
  content: string | null;
  target: string | null;
  url: string | null;
  html_url: string | null;
  git_url: string | null;
  download_url: string | null;
  submodule_git_url: string | null;
  _links: FileLinksResponse | null;
  lfs_oid: string | null;
  lfs_size: number | null;
}

/** The contents-ext answer: one of the two is set. */
export interface ContentsExtResponse {
  file_contents?: ContentsResponse;
  dir_contents?: ContentsResponse[];
}

/** The commit a file change made. */
export interface FileCommitResponse {
  url: string;
  sha: string;
  created: string;
  html_url: string;
  author: CommitUser | null;
  committer: CommitUser | null;
  parents: CommitMeta[];
  message: string;
  tree: CommitMeta | null;
}

/** The answer of a single-file change. */
export interface FileResponse {
  content: ContentsResponse | null;
  commit: FileCommitResponse | null;
  verification: PayloadCommitVerification | null;
}

/** The answer of a multi-file change (deleted files are null). */
export interface FilesResponse {
  files: (ContentsResponse | null)[];
  commit: FileCommitResponse | null;
  verification: PayloadCommitVerification | null;
}

/** A blob with its content (base64) unless it is larger than the API's blob limit. */
export interface GitBlobResponse {
  content: string | null;
  encoding: string | null;
  url: string;
  sha: string;
  size: number;
  lfs_oid?: string;
  lfs_size?: number;
}

/** One entry of a tree listing. */
export interface GitEntry {
  path: string;
  mode: string;
  type: string;
  size: number;
  sha: string;
  url: string;
}

/** A (page of a) tree. */
export interface GitTreeResponse {
  sha: string;
  url: string;
  tree: GitEntry[];
  truncated: boolean;
  page: number;
  total_count: number;
}

/** The object a ref points at. */
export interface GitObject {
  type: string;
  sha: string;
  url: string;
}

/** A git reference. */
export interface Reference {
  ref: string;
  url: string;
  object: GitObject;
}

/** The object an annotated tag points at. */
export interface AnnotatedTagObject {
  type: string;
  url: string;
  sha: string;
}

/** An annotated tag object. */
export interface AnnotatedTag {
  tag: string;
  sha: string;
  url: string;
  message: string;
  tagger: CommitUser | null;
  object: AnnotatedTagObject | null;
  verification: PayloadCommitVerification | null;
}

/**
 * Apply a patch (Gitea's ApplyDiffPatchFileOptions; its swagger names UpdateFileOptions). `content`
 * is the unified diff as text (base64 of one is accepted too, as that swagger describes it).
 */
export interface ApplyDiffPatchFileOptions extends FileOptions {
  /** The patch: a unified diff as `git diff` or `git format-patch` writes it. */
  content: string;
  /** Accepted for compatibility with UpdateFileOptions; not used. */
  sha?: string;
}

/** The files to read in one request (Gitea's GetFilesOptions). */
export interface GetFilesOptions {
  files?: string[];
}

/** The EditorConfig properties of one file, as Gitea's editorconfig Definition shows them. */
export interface EditorConfigDefinition {
  charset?: string;
  indent_style?: string;
  indent_size?: string;
  end_of_line?: string;
}
