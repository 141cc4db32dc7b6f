/**
 * Generating a repository from a template repository (Gitea's POST /repos/{owner}/{repo}/generate):
 * a new repository whose default branch holds one fresh commit with the template's tree, the files
 * selected by `.gitea/template` expanded with the template variables, `.gitea/template` removed.
 * The tree is built in the new repository's object database, never in a worktree.
 */
import { withTx, type DbContext } from '../../db';
import { Conflict, Forbidden, NotFound, Validation } from '../../errors';
import { settings } from '../../config';
import { repoPath } from '../../git/paths';
import { dirExists, initBare, validBranchName } from '../../git/init';
import { commitTree, updateRef } from '../../git/tree-edit';
import { readBlob, writeBlob } from '../../git/objects';
import { refId } from '../../git/ref-info';
import {
  treeOf, listTree, copyObjects, editTree, type TreeEdit, type TreeEntry,
} from '../../git/tree';
import { withRepoLock } from '../../lock';
import { findUserByName, UserType, type UserModel } from '../../models/user.model';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { topicIdsOfRepo, insertRepoTopic } from '../../models/repo-topic.model';
import { copyLfsLinks } from '../../models/lfs-meta-object.model';
import { adjustTopicRepoCount } from '../../models/topic.model';
import { AccessMode, UnitType } from '../../models/perm';
import type { GenerateRepoOption } from '../../api/repo';
import { recordInitialRefs } from '../git-push/sync.service';
import type { RepoContext } from '../repo/context';
import { DEFAULT_UNITS, discardNewRepo, insertOwnedRepo } from './repo-create.service';
import { assertCanCreateInOrg, assertRepoName } from '../repo/rules';
import { expandBytes, expandVariables, parseTemplateGlobs, templateVariables, type TemplateInfo } from '../repo/template-vars';
import { notify } from '../notify/notifier';

/** The clone addresses of owner/name, as the API shows them (built by the caller from the one URL rule). */
export type CloneUrls = (owner: string, name: string) => { https: string; ssh: string };

const TEMPLATE_FILE = '.gitea/template';
const SUBDIR_CHECK = /(^|\/)(\.git|\.\.?)(\/|$)/i;

/** Who the generated commit is by: the new repository's owner, with its private address when it keeps its email private (as Gitea). */
function signatureOf(u: UserModel): { name: string; email: string } {
  const name = u.fullName.replace(/[\n<>]/g, '').trim() || u.name;
  const email = u.keepEmailPrivate || !u.email ? `${u.lowerName}@noreply.localhost` : u.email;
  return { name, email };
}

/** Where the new repository goes: the caller, or an organization it may create in (any owner for site admins). */
async function generateOwner(ctx: DbContext, doer: UserModel, name: string): Promise<UserModel> {
  if (name.toLowerCase() === doer.lowerName) return doer;
  const owner = await findUserByName(ctx, name);
  if (!owner) throw new NotFound(`request owner \`${name}\` does not exist`);
  if (!doer.isAdmin && owner.type !== UserType.Organization) throw new Forbidden('Only admin can generate repository for other user.');
  await assertCanCreateInOrg(ctx, doer, owner);
  return owner;
}

/**
 * The edits that turn the template's tree into the new one: `.gitea/template` goes; each regular
 * file its globs match gets its content expanded and its path expanded (values sanitized). A path
 * that would expand into something git must not hold (`.git`, `..`) or onto an existing directory
 * keeps its name.
 */
async function templateEdits(from: string, to: string, entries: TreeEntry[], vars: Map<string, string>): Promise<TreeEdit[]> {
  const file = entries.find((e) => e.path === TEMPLATE_FILE && e.type === 'blob');
  if (!file) return [];
  const edits: TreeEdit[] = [{ path: TEMPLATE_FILE, remove: true }];
  const globs = parseTemplateGlobs((await readBlob(from, file.oid)).toString('utf8'));
  if (globs.length === 0) return edits;
  const dirs = new Set(entries.filter((e) => e.type === 'tree').map((e) => e.path));
  const files = new Set(entries.filter((e) => e.type !== 'tree').map((e) => e.path));
  // why: a new path on an existing directory, or below an existing file, would silently replace it.
  const clashes = (p: string) => dirs.has(p) || p.split('/').slice(0, -1).some((_, i, parts) => files.has(parts.slice(0, i + 1).join('/')));
  for (const e of entries) {
    if (e.type !== 'blob' || e.mode === '120000' || e.path === TEMPLATE_FILE) continue;
    const utf8 = Buffer.from(e.path, 'latin1').toString('utf8');
    if (!globs.some((g) => g.test(utf8))) continue;
    const oid = await writeBlob(to, expandBytes(await readBlob(from, e.oid), vars));
    const expanded = expandVariables(utf8, vars, true);
    const target = Buffer.from(expanded, 'utf8').toString('latin1');
    const keep = target === e.path || !expanded || expanded.startsWith('/') || expanded.endsWith('/') || expanded.includes('//') || SUBDIR_CHECK.test(expanded) || clashes(target);
    if (!keep) edits.push({ path: e.path, remove: true });
    edits.push({ path: keep ? e.path : target, mode: e.mode, oid });
  }
  return edits;
}

/** Build the generated commit in `to` from the template at `from`; false when the template has nothing to copy. */
async function generateContent(from: string, to: string, template: RepositoryModel, branch: string, vars: Map<string, string>, who: UserModel): Promise<boolean> {
  const commit = await refId(from, `refs/heads/${template.defaultBranch}`);
  if (!commit) return false;
  const tree = await treeOf(from, commit);
  const entries = await listTree(from, tree);
  // why: only the template's current tree is copied (no history); submodule links stay links.
  await copyObjects(from, to, [tree, ...entries.filter((e) => e.type !== 'commit').map((e) => e.oid)]);
  const newTree = await editTree(to, tree, await templateEdits(from, to, entries, vars));
  await updateRef(to, `refs/heads/${branch}`, await commitTree(to, newTree, [], 'Initial commit\n', { ...signatureOf(who), date: new Date() }), null);
  return true;
}

/** Copy the template's topics to the new repository, with their counts. */
async function copyTopics(ctx: DbContext, templateId: number, repoId: number): Promise<void> {
  await withTx(ctx, async (tx) => {
    for (const topicId of await topicIdsOfRepo(tx, templateId)) {
      await insertRepoTopic(tx, repoId, topicId);
      await adjustTopicRepoCount(tx, topicId, 1);
    }
  });
}

/** Generate a repository from the template of `rc` for `doer`; returns the new repository. */
export async function generateRepo(ctx: DbContext, doer: UserModel, rc: RepoContext, opt: GenerateRepoOption, urls: CloneUrls): Promise<RepositoryModel> {
  if (!rc.perm.can(UnitType.Code, AccessMode.Read) && rc.perm.mode < AccessMode.Admin && !doer.isAdmin) {
    throw new Forbidden('user should have specific read permission or be a repo admin or a site admin');
  }
  const template = rc.repo;
  if (!template.isTemplate) throw new Validation('this is not a template repo');
  // why: labels, webhooks, avatar and protected branches do not exist yet; their flags are accepted and take
  // effect when those features land. git_hooks copies nothing ever: the server owns every repository's hooks.
  if (!(opt.git_content || opt.topics || opt.git_hooks || opt.webhooks || opt.avatar || opt.labels || opt.protected_branch)) {
    throw new Validation('must select at least one template item');
  }
  const owner = await generateOwner(ctx, doer, opt.owner);
  assertRepoName(opt.name);
  // why: git owns refs; whether the template has content is read from its default branch, not the cached empty flag.
  const withContent = !!opt.git_content;
  const branch = opt.default_branch?.trim() || (withContent ? template.defaultBranch : 'main');
  if (!(await validBranchName(branch))) throw new Validation(`invalid default branch name: ${JSON.stringify(branch)}`);
  const description = opt.description ?? '';
  const repo = await insertOwnedRepo(ctx, doer, owner, {
    name: opt.name, description, defaultBranch: branch, isPrivate: !!opt.private || settings().repository.forcePrivate,
    isTemplate: false, objectFormatName: template.objectFormatName, templateId: template.id,
  }, DEFAULT_UNITS, { kind: 'create', taken: () => 'The repository with the same name already exists.' });

  const dir = repoPath(owner.name, opt.name);
  const from = repoPath(rc.owner.name, template.name);
  const info: TemplateInfo = {
    repoName: opt.name, repoOwner: owner.name, repoDescription: description, repoLink: `/${owner.name}/${opt.name}`,
    repoHttpsUrl: urls(owner.name, opt.name).https, repoSshUrl: urls(owner.name, opt.name).ssh,
    templateName: template.name, templateOwner: rc.owner.name, templateDescription: template.description,
    templateLink: `/${rc.owner.name}/${template.name}`, templateHttpsUrl: urls(rc.owner.name, template.name).https,
    templateSshUrl: urls(rc.owner.name, template.name).ssh, now: new Date(),
  };
  // why: the new repository's lock keeps any write to it out until its first commit is in place.
  await withRepoLock(repo.id, async () => {
    if (await dirExists(dir)) {
      await discardNewRepo(ctx, repo, null);
      throw new Conflict(`repository files already exist [uname: ${owner.name}, name: ${opt.name}]`);
    }
    try {
      await initBare(dir, branch);
      if (withContent && (await generateContent(from, dir, template, branch, templateVariables(info), owner))) {
        // why: the copied tree may hold LFS pointers; the new repository must serve their objects (Gitea's CopyLFS).
        await withTx(ctx, (tx) => copyLfsLinks(tx, template.id, repo.id));
      }
      if (opt.topics) await copyTopics(ctx, template.id, repo.id);
    } catch (err) {
      await discardNewRepo(ctx, repo, dir);
      throw err;
    }
  });
  await recordInitialRefs(repo.id, doer.id, branch, ctx);
  await withTx(ctx, (tx) => notify.repositoryCreated(tx, { doer, repo, owner }));
  return (await findRepoById(ctx, repo.id)) ?? repo;
}
