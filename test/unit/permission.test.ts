/**
 * The permission function (src/services/perm/permission.ts) against a fresh SQLite database:
 * principals x owner visibility x repository visibility x units x modes, and the grants that
 * combine (owner, collaborators, teams per unit, admin and owners teams, includes_all_repositories,
 * token scopes, public-only tokens, deploy keys).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadSettings, useSettings } from '../../src/config';
import { openDatabase, closeDatabase, systemCtx } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { UserModel, UserType, Visibility } from '../../src/models/user.model';
import { RepositoryModel } from '../../src/models/repository.model';
import { RepoUnitModel } from '../../src/models/repo-unit.model';
import { CollaborationModel } from '../../src/models/collaboration.model';
import { OrgUserModel } from '../../src/models/org-user.model';
import { TeamModel } from '../../src/models/team.model';
import { TeamUserModel } from '../../src/models/team-user.model';
import { TeamUnitModel } from '../../src/models/team-unit.model';
import { TeamRepoModel } from '../../src/models/team-repo.model';
import { AccessMode, UnitType } from '../../src/models/perm';
import { parseScopes } from '../../src/services/auth/scope';
import { ANONYMOUS, type Principal } from '../../src/services/auth/principal';
import { repoPermission, can, canSeeOwner } from '../../src/services/perm/permission';

const ctx = systemCtx;
const { Code, Issues, PullRequests, Releases } = UnitType;
const { None, Read, Write, Admin, Owner } = AccessMode;

let seq = 0;
async function user(name: string, extra: Partial<UserModel> = {}): Promise<UserModel> {
  return UserModel.create({ name, lowerName: name.toLowerCase(), email: `${name}@x.test`, type: UserType.Individual, ...extra });
}
async function org(name: string, visibility: Visibility): Promise<UserModel> {
  return user(name, { type: UserType.Organization, visibility });
}
/** A repository with code, issues and releases enabled (pull requests disabled). */
async function repo(owner: UserModel, isPrivate: boolean): Promise<RepositoryModel> {
  const r = await RepositoryModel.create({ ownerId: owner.id, ownerName: owner.name, name: `r${++seq}`, lowerName: `r${seq}`, isPrivate });
  for (const type of [Code, Issues, Releases]) await RepoUnitModel.create({ repoId: r.id, type });
  return r;
}
async function team(o: UserModel, authorize: AccessMode, units: [UnitType, AccessMode][], opts: { repos?: RepositoryModel[]; all?: boolean; members?: UserModel[] } = {}): Promise<TeamModel> {
  const t = await TeamModel.create({ orgId: o.id, name: `t${++seq}`, lowerName: `t${seq}`, authorize, includesAllRepositories: !!opts.all });
  for (const [type, accessMode] of units) await TeamUnitModel.create({ orgId: o.id, teamId: t.id, type, accessMode });
  for (const r of opts.repos ?? []) await TeamRepoModel.create({ orgId: o.id, teamId: t.id, repoId: r.id });
  for (const m of opts.members ?? []) {
    await TeamUserModel.create({ orgId: o.id, teamId: t.id, uid: m.id });
    if (!(await OrgUserModel.findOne({ where: { orgId: o.id, uid: m.id } }))) await OrgUserModel.create({ orgId: o.id, uid: m.id });
  }
  return t;
}
const as = (u: UserModel, scopes?: string): Principal => ({ user: u, scopes: scopes ? parseScopes(scopes) : null, tokenId: scopes ? 1 : null, method: scopes ? 'token' : 'basic-password' });
async function modes(p: Principal, r: RepositoryModel, owner: UserModel): Promise<Record<string, AccessMode>> {
  const perm = await repoPermission(ctx, p, r, owner);
  return { code: perm.unitMode(Code), issues: perm.unitMode(Issues), pulls: perm.unitMode(PullRequests), releases: perm.unitMode(Releases) };
}

describe('permission function', () => {
  let dir: string;
  let admin: UserModel, stranger: UserModel, restricted: UserModel;
  const owners: Record<string, UserModel> = {};

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-perm-'));
    const s = loadSettings(null, { FORGE__SERVER__APP_DATA_PATH: dir, FORGE__LOG__LEVEL: 'none' });
    useSettings(s);
    await migrate(openDatabase(s), s);
    admin = await user('admin', { isAdmin: true });
    stranger = await user('stranger');
    restricted = await user('restricted', { isRestricted: true });
    for (const [n, v] of [['public', Visibility.Public], ['limited', Visibility.Limited], ['private', Visibility.Private]] as const) {
      owners[`user-${n}`] = await user(`owner-${n}`, { visibility: v });
      owners[`org-${n}`] = await org(`org-${n}`, v);
    }
  });
  after(async () => {
    await closeDatabase();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('matrix: principal x owner visibility x repository visibility', () => {
    // expected mode on enabled units for a principal with no grant
    const expected = (who: string, ownerVis: string, isPrivate: boolean): AccessMode => {
      if (who === 'admin') return Owner;
      if (isPrivate || who === 'restricted') return None;
      if (who === 'anonymous') return ownerVis === 'public' ? Read : None;
      return ownerVis === 'private' ? None : Read;
    };
    for (const kind of ['user', 'org']) {
      for (const vis of ['public', 'limited', 'private']) {
        for (const isPrivate of [false, true]) {
          it(`${kind} owner ${vis}, ${isPrivate ? 'private' : 'public'} repository`, async () => {
            const owner = owners[`${kind}-${vis}`];
            const r = await repo(owner, isPrivate);
            const principals: [string, Principal][] = [['anonymous', ANONYMOUS], ['user', as(stranger)], ['restricted', as(restricted)], ['admin', as(admin)]];
            for (const [who, p] of principals) {
              const want = expected(who, vis, isPrivate);
              const got = await modes(p, r, owner);
              expect(got, who).to.deep.equal({ code: want, issues: want, pulls: None, releases: want });
              expect(await can(ctx, p, r, owner, Code, Read), `${who} read`).to.equal(want >= Read);
              expect(await can(ctx, p, r, owner, Code, Write), `${who} write`).to.equal(want >= Write);
              // a disabled unit is closed to everyone, the site admin included
              expect(await can(ctx, p, r, owner, PullRequests, Read), `${who} disabled unit`).to.equal(false);
            }
            if (kind === 'user') expect(await modes(as(owner), r, owner)).to.deep.equal({ code: Owner, issues: Owner, pulls: None, releases: Owner });
          });
        }
      }
    }
  });

  describe('canSeeOwner', () => {
    it('follows visibility, membership, restriction and public-only tokens', async () => {
      const member = await user('seer');
      await team(owners['org-private'], Read, [[Code, Read]], { members: [member] });
      await team(owners['org-limited'], Read, [[Code, Read]], { members: [restricted] });
      const cases: [string, Principal, boolean[]][] = [
        // user-public, user-limited, user-private, org-public, org-limited, org-private
        ['anonymous', ANONYMOUS, [true, false, false, true, false, false]],
        ['user', as(stranger), [true, true, false, true, true, false]],
        ['restricted (member of org-limited)', as(restricted), [true, false, false, true, true, false]],
        ['member of org-private', as(member), [true, true, false, true, true, true]],
        ['admin', as(admin), [true, true, true, true, true, true]],
        ['admin with public-only token', as(admin, 'public-only,all'), [true, false, false, true, false, false]],
      ];
      const order = ['user-public', 'user-limited', 'user-private', 'org-public', 'org-limited', 'org-private'];
      for (const [who, p, want] of cases) {
        const got = await Promise.all(order.map((k) => canSeeOwner(ctx, p, owners[k])));
        expect(got, who).to.deep.equal(want);
      }
      expect(await canSeeOwner(ctx, as(owners['user-private']), owners['user-private'])).to.equal(true);
    });
  });

  describe('grants', () => {
    it('a collaborator gets its mode on every enabled unit, even when the owner is hidden', async () => {
      for (const owner of [owners['user-private'], owners['org-private']]) {
        const r = await repo(owner, true);
        const u = await user(`collab${++seq}`);
        await CollaborationModel.create({ repoId: r.id, userId: u.id, mode: Write });
        expect(await modes(as(u), r, owner)).to.deep.equal({ code: Write, issues: Write, pulls: None, releases: Write });
        const rr = await user(`rcollab${++seq}`, { isRestricted: true });
        await CollaborationModel.create({ repoId: r.id, userId: rr.id, mode: Read });
        expect(await modes(as(rr), r, owner)).to.deep.equal({ code: Read, issues: Read, pulls: None, releases: Read });
      }
    });

    it('teams combine per unit by maximum; units no team defines stay closed on a private repository', async () => {
      const o = owners['org-private'];
      const r = await repo(o, true);
      const u = await user(`teamer${++seq}`);
      await team(o, Read, [[Code, Read], [Issues, Write]], { repos: [r], members: [u] });
      await team(o, Write, [[Code, Write], [PullRequests, Write]], { repos: [r], members: [u] });
      expect(await modes(as(u), r, o)).to.deep.equal({ code: Write, issues: Write, pulls: None, releases: None });
    });

    it('units no team defines default to read on a public repository', async () => {
      const o = owners['org-public'];
      const r = await repo(o, false);
      const u = await user(`pubteamer${++seq}`);
      await team(o, Write, [[Code, Write]], { repos: [r], members: [u] });
      expect(await modes(as(u), r, o)).to.deep.equal({ code: Write, issues: Read, pulls: None, releases: Read });
    });

    it('a team reaches only its repositories, or every repository with includes_all_repositories', async () => {
      const o = owners['org-limited'];
      const [linked, other] = [await repo(o, true), await repo(o, true)];
      const u = await user(`scoped${++seq}`);
      await team(o, Write, [[Code, Write], [Issues, Write], [Releases, Write]], { repos: [linked], members: [u] });
      expect((await modes(as(u), linked, o)).code).to.equal(Write);
      expect(await modes(as(u), other, o)).to.deep.equal({ code: None, issues: None, pulls: None, releases: None });
      const v = await user(`allrepos${++seq}`);
      await team(o, Read, [[Code, Read]], { all: true, members: [v] });
      expect(await modes(as(v), other, o)).to.deep.equal({ code: Read, issues: None, pulls: None, releases: None });
      // a team the user is not in gives nothing
      expect((await modes(as(stranger), linked, o)).code).to.equal(None);
    });

    it('an admin team and the owners team make members owners on every unit', async () => {
      const o = owners['org-private'];
      const r = await repo(o, true);
      const a = await user(`adm${++seq}`);
      const w = await user(`own${++seq}`);
      await team(o, Admin, [[Code, Admin]], { repos: [r], members: [a] });
      await team(o, Owner, [[Code, Owner]], { all: true, members: [w] });
      for (const u of [a, w]) {
        expect(await modes(as(u), r, o)).to.deep.equal({ code: Owner, issues: Owner, pulls: None, releases: Owner });
        expect((await repoPermission(ctx, as(u), r, o)).isOwnerOrAdmin).to.equal(true);
      }
    });

    it('the highest of collaborator and team grants wins per unit', async () => {
      const o = owners['org-public'];
      const r = await repo(o, true);
      const u = await user(`mixed${++seq}`);
      await CollaborationModel.create({ repoId: r.id, userId: u.id, mode: Read });
      await team(o, Write, [[Issues, Write]], { repos: [r], members: [u] });
      expect(await modes(as(u), r, o)).to.deep.equal({ code: Read, issues: Write, pulls: None, releases: Read });
    });
  });

  describe('tokens and keys', () => {
    let o: UserModel, priv: RepositoryModel, pub: RepositoryModel, u: UserModel;
    before(async () => {
      o = owners['user-public'];
      priv = await repo(o, true);
      pub = await repo(o, false);
      u = await user(`tok${++seq}`);
      await CollaborationModel.create({ repoId: priv.id, userId: u.id, mode: Admin });
    });

    it('token scopes cap each unit by its category (repository for code, issue for issues)', async () => {
      expect(await modes(as(u, 'read:repository'), priv, o)).to.deep.equal({ code: Read, issues: None, pulls: None, releases: Read });
      expect(await modes(as(u, 'write:repository,read:issue'), priv, o)).to.deep.equal({ code: Admin, issues: Read, pulls: None, releases: Admin });
      expect(await modes(as(u, 'all'), priv, o)).to.deep.equal({ code: Admin, issues: Admin, pulls: None, releases: Admin });
      expect(await modes(as(u, 'read:user'), priv, o)).to.deep.equal({ code: None, issues: None, pulls: None, releases: None });
      expect(await can(ctx, as(admin, 'read:repository'), priv, o, Code, Write)).to.equal(false);
      expect(await can(ctx, as(admin, 'write:repository'), priv, o, Code, Owner)).to.equal(true);
    });

    it('a public-only token reaches only public repositories of public owners', async () => {
      expect(await modes(as(u, 'public-only,all'), priv, o)).to.deep.equal({ code: None, issues: None, pulls: None, releases: None });
      expect(await modes(as(u, 'public-only,all'), pub, o)).to.deep.equal({ code: Read, issues: Read, pulls: None, releases: Read });
      expect((await modes(as(o, 'public-only,all'), priv, o)).code).to.equal(None);
      const lo = owners['org-limited'];
      const lr = await repo(lo, false);
      expect((await modes(as(admin, 'public-only,all'), lr, lo)).code).to.equal(None);
      expect((await modes(as(admin, 'all'), lr, lo)).code).to.equal(Owner);
    });

    it('a deploy key opens only code of its repository, at most write', async () => {
      const key = (repoId: number, mode: AccessMode): Principal => ({ user: null, scopes: null, tokenId: null, method: 'deploy-key', deployKey: { id: 1, repoId, mode } });
      expect(await modes(key(priv.id, Read), priv, o)).to.deep.equal({ code: Read, issues: None, pulls: None, releases: None });
      expect(await modes(key(priv.id, Admin), priv, o)).to.deep.equal({ code: Write, issues: None, pulls: None, releases: None });
      expect(await modes(key(priv.id, Write), pub, o)).to.deep.equal({ code: None, issues: None, pulls: None, releases: None });
    });
  });
});
