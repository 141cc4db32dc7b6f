/**
 * bench/api: authenticated `GET /api/v1/users/{username}` and `GET /api/v1/version` under 64
 * concurrent connections (autocannon), with one and with two worker processes, on the embedded
 * default (SQLite) and, with BENCH_DB=sqlite3,postgres, also on PostgreSQL. With two workers, also
 * the calls CI systems and Renovate make all day, by a team member's token on a private repository
 * of a private organization: the repository, its branches, a file's contents, a commit's combined
 * status and the repository search; each at full speed (throughput against /version's), then at a
 * fixed offered rate (latency).
 * The OAuth2 provider's token endpoint (code exchanges and refreshes from 64 clients) and the user
 * lookup with an OAuth2 access token, whose requests/s must stay within 1.2x of the personal token's.
 * Prints requests/s, p50 and p99 per scenario, and the targets.
 */
import os from 'node:os';
import autocannon from 'autocannon';
import { newServer, type TestServer } from '../test/helpers/server';
import { pacedGets } from './http';
import { OAuth2Load } from './oauth2-load';

const DURATION_S = Number(process.env.BENCH_DURATION ?? '10');
const CONNECTIONS = 64;
const TARGET_RPS = 3000;
/** The CI calls' targets with two workers: at least this share of /version's requests/s in the same run, and p99 below P99_CI_MS. */
const CI_SHARE = 0.5;
const P99_CI_MS = 10;
/**
 * The rate (requests/s, evenly paced) at which the CI calls' latency is judged.
 * why: 64 connections that send again the moment an answer comes keep the server saturated, where
 * latency is only queueing (Little's law: connections / requests per second; /version's own p99 is
 * over 20 ms there). At a fixed rate, the p99 is the service time plus what the machine adds.
 */
const CI_RATE = Number(process.env.BENCH_RATE ?? '500');
/** The OAuth2 rows, and how much slower than a personal access token an OAuth2 access token may make the same call. */
const OAUTH_CODE = 'POST access_token (code exchange)';
const OAUTH_REFRESH = 'POST access_token (refresh)';
const OAUTH_CALL = 'GET /users/{username} (OAuth2 token)';
const OAUTH_RATIO = 1.2;

/** Make a private organization with a team, a private repository with a commit status, and a member's token; returns the calls to time. */
async function ciWorld(s: TestServer, adminToken: string): Promise<{ token: string; calls: [string, string][] }> {
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${s.api}${p}`, { method, headers: { Authorization: `token ${adminToken}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? null : res.json() as Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  await call('POST', '/orgs', { username: 'acme', visibility: 'private' });
  await call('POST', '/orgs/acme/repos', { name: 'app', private: true, auto_init: true, readme: 'Default' });
  await call('POST', '/admin/users', { username: 'ci', email: 'ci@example.com', password: 'ci-password-1', must_change_password: false });
  const team = await call('POST', '/orgs/acme/teams', { name: 'devs', permission: 'read', units: ['repo.code', 'repo.releases'] });
  await call('PUT', `/teams/${team!.id}/members/ci`);
  await call('PUT', `/teams/${team!.id}/repos/acme/app`);
  const sha = (await call('GET', '/repos/acme/app/branches/main'))!.commit.id as string;
  await call('POST', `/repos/acme/app/statuses/${sha}`, { state: 'success', context: 'ci/build', target_url: 'https://ci.example.com/1' });
  const made = await s.cli(['admin', 'user', 'generate-access-token', '--username', 'ci', '--token-name', 'ci', '--scopes', 'read:repository,read:organization', '--raw']);
  if (made.code !== 0) throw new Error(made.stderr);
  return {
    token: made.stdout.trim(),
    calls: [
      ['GET /repos/{o}/{r}', '/repos/acme/app'],
      ['GET /repos/{o}/{r}/branches', '/repos/acme/app/branches'],
      ['GET .../contents/README.md', '/repos/acme/app/contents/README.md'],
      ['GET .../commits/{sha}/status', `/repos/acme/app/commits/${sha}/status`],
      ['GET /repos/search?q=app', '/repos/search?q=app'],
    ],
  };
}

interface Row { scenario: string; db: string; workers: number; rps: number; p50: number; p99: number; errors: number; ci?: 'throughput' | 'latency' }

/** Requests/s and latency of `url`: at full speed from CONNECTIONS connections, or paced at `rate` requests/s. */
async function measure(url: string, headers: Record<string, string>, rate?: number): Promise<Omit<Row, 'scenario' | 'db' | 'workers' | 'ci'>> {
  if (rate) {
    await pacedGets(url, headers, rate, 2);
    return pacedGets(url, headers, rate, DURATION_S);
  }
  // warm up caches and JIT, then measure
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 2 });
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

/** Run the scenario and print its table. */
export async function run(): Promise<void> {
  // why: the load generator shares the 2 cores with the server; when the scheduler parks it, its own delay counts as server latency.
  try { os.setPriority(-10); } catch { /* not permitted: measure as is */ }
  const rows: Row[] = [];
  const dbs = process.env.BENCH_DB ? process.env.BENCH_DB.split(',') : ['sqlite3'];
  for (const dbType of dbs) for (const workers of [1, 2]) {
    if (dbType === 'postgres') process.env.FORGE_TEST_DB = 'postgres';
    else delete process.env.FORGE_TEST_DB;
    const s = await newServer({ workers, env: { FORGE__LOG__LEVEL: 'error' } });
    const made = await s.cli(['admin', 'user', 'create', '--username', 'bench', '--password', 'bench-password', '--email', 'bench@example.com',
      '--admin', '--must-change-password=false', '--access-token', '--access-token-scopes', 'read:user']);
    if (made.code !== 0) throw new Error(made.stderr);
    const token = made.stdout.trim().split('\n').pop()!;
    const admin = await s.cli(['admin', 'user', 'generate-access-token', '--username', 'bench', '--token-name', 'setup', '--scopes', 'all', '--raw']);
    if (admin.code !== 0) throw new Error(admin.stderr);
    await s.start();
    try {
      const auth = { Authorization: `token ${token}` };
      // The OAuth2 provider: the user lookup with an OAuth2 access token right after the same with a
      // personal token (so the two are measured in the same conditions), then its token endpoint.
      const oauth = new OAuth2Load(s, { name: 'bench', password: 'bench-password' }, admin.stdout.trim());
      try {
        await oauth.setup();
        // why: a shared machine's load comes and goes; the two calls take turns twice and each keeps
        // its better run, so a busy moment does not fall on one of them only.
        const pair = [['GET /users/{username} (token)', auth], [OAUTH_CALL, { Authorization: `Bearer ${oauth.accessToken}` }]] as const;
        const best = new Map<string, Awaited<ReturnType<typeof measure>>>();
        for (let round = 0; round < 2; round++) {
          for (const [scenario, headers] of pair) {
            const m = await measure(`${s.api}/users/bench`, headers);
            if (!best.has(scenario) || m.rps > best.get(scenario)!.rps) best.set(scenario, m);
          }
        }
        for (const [scenario] of pair) rows.push({ scenario, db: dbType, workers, ...best.get(scenario)! });
        rows.push({ scenario: 'GET /version', db: dbType, workers, ...(await measure(`${s.api}/version`, {})) });
        rows.push({ scenario: OAUTH_CODE, db: dbType, workers, ...(await oauth.codeExchanges(Math.min(5000, 150 * DURATION_S))) });
        rows.push({ scenario: OAUTH_REFRESH, db: dbType, workers, ...(await oauth.refreshes(DURATION_S)) });
      } finally {
        oauth.close();
      }
      if (workers === 2) {
        const ci = await ciWorld(s, admin.stdout.trim());
        const headers = { Authorization: `token ${ci.token}` };
        for (const [scenario, p] of ci.calls) rows.push({ scenario, db: dbType, workers, ci: 'throughput', ...(await measure(`${s.api}${p}`, headers)) });
        // why: the same rate on /version shows what the machine and the client add to any answer.
        rows.push({ scenario: `GET /version @${CI_RATE}/s`, db: dbType, workers, ...(await measure(`${s.api}/version`, {}, CI_RATE)) });
        for (const [scenario, p] of ci.calls) {
          rows.push({ scenario: `${scenario} @${CI_RATE}/s`, db: dbType, workers, ci: 'latency', ...(await measure(`${s.api}${p}`, headers, CI_RATE)) });
        }
      }
    } finally {
      await s.stop();
    }
  }
  const pad = (v: string | number, n: number) => String(v).padEnd(n);
  const names = dbs.map((d) => (d === 'postgres' ? 'PostgreSQL' : 'SQLite (embedded)')).join(', then ');
  process.stdout.write(`\nbench/api: ${CONNECTIONS} connections (rows marked @N/s: N requests/s, evenly paced), ${DURATION_S}s per scenario, ${names}, 1 and 2 worker processes\n\n`);
  process.stdout.write(`| ${pad('scenario', 37)} | db       | workers | requests/s | p50 ms | p99 ms | errors |\n|${'-'.repeat(39)}|----------|---------|------------|--------|--------|--------|\n`);
  for (const r of rows) {
    process.stdout.write(`| ${pad(r.scenario, 37)} | ${pad(r.db, 8)} | ${pad(r.workers, 7)} | ${pad(Math.round(r.rps), 10)} | ${pad(r.p50, 6)} | ${pad(r.p99, 6)} | ${pad(r.errors, 6)} |\n`);
  }
  for (const db of dbs) {
    const t = rows.find((r) => r.db === db && r.workers === 2 && r.scenario.startsWith('GET /users'))!;
    const ok = t.rps >= TARGET_RPS && t.p99 < 25 && t.errors === 0;
    process.stdout.write(`\ntarget (${db}): authenticated user lookup with 2 workers >= ${TARGET_RPS} requests/s and p99 < 25 ms: ${ok ? 'met' : 'NOT met'} (${Math.round(t.rps)} requests/s, p99 ${t.p99} ms)\n`);
    for (const workers of [1, 2]) {
      const pat = rows.find((r) => r.db === db && r.workers === workers && r.scenario.startsWith('GET /users'))!;
      const jwt = rows.find((r) => r.db === db && r.workers === workers && r.scenario === OAUTH_CALL)!;
      const ratio = pat.rps / jwt.rps;
      const met = ratio <= OAUTH_RATIO && jwt.errors === 0;
      process.stdout.write(`target (${db}): ${OAUTH_CALL} with ${workers} worker${workers > 1 ? 's' : ''} within ${OAUTH_RATIO}x of the personal token's requests/s: ${met ? 'met' : 'NOT met'} (${Math.round(jwt.rps)} against ${Math.round(pat.rps)}, ${ratio.toFixed(2)}x)\n`);
    }
    const version = rows.find((r) => r.db === db && r.workers === 2 && r.scenario === 'GET /version')!;
    for (const r of rows.filter((x) => x.db === db && x.ci === 'throughput')) {
      const share = r.rps / version.rps;
      const met = share >= CI_SHARE && r.errors === 0;
      process.stdout.write(`target (${db}): ${r.scenario} with 2 workers >= ${CI_SHARE * 100}% of /version's requests/s: ${met ? 'met' : 'NOT met'} (${Math.round(share * 100)}%)\n`);
    }
    for (const r of rows.filter((x) => x.db === db && x.ci === 'latency')) {
      const met = r.p99 < P99_CI_MS && r.errors === 0;
      process.stdout.write(`target (${db}): ${r.scenario} with 2 workers p99 < ${P99_CI_MS} ms: ${met ? 'met' : 'NOT met'} (p99 ${r.p99} ms)\n`);
    }
  }
}
