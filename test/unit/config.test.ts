/**
 * Reading app.ini and FORGE__ variables (src/config): sections named with a dot, which the ini
 * package nests, are read from the file like the others; typos are warned of; variables win.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadSettings } from '../../src/config';

describe('configuration', () => {
  let dir: string;
  const ini = (text: string): string => {
    const file = path.join(dir, `app-${Math.random().toString(36).slice(2)}.ini`);
    fs.writeFileSync(file, text);
    return file;
  };

  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-config-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads sections named with a dot from app.ini, and warns of their unknown keys only', () => {
    const s = loadSettings(ini([
      '[server]', `APP_DATA_PATH = ${dir}/data`,
      '[git.timeout]', 'DEFAULT = 42',
      '[repository]', 'MAX_PUSH_REFS = 7',
      '[repository.pull-request]', 'CLOSE_KEYWORDS = fertig, Done', 'CLOSE_KEYWRODS = x',
      '[repository.signing]', 'SIGNING_FORMAT = ssh',
      '[cron.cleanup_hook_task_table]', 'NUMBER_TO_KEEP = 3',
      '[ssh.minimum_key_sizes]', 'RSA = 4096',
      '[repository.unknown]', 'X = 1',
    ].join('\n')), {});
    expect(s.gitTimeout.default).to.equal(42);
    expect(s.repository.maxPushRefs).to.equal(7);
    expect(s.repositoryPullRequest.closeKeywords).to.deep.equal(['fertig', 'done']);
    expect(s.signing.signingFormat).to.equal('ssh');
    expect(s.hookTaskCleanup.numberToKeep).to.equal(3);
    expect(s.sshMinimumKeySizes.rsa).to.equal(4096);
    expect(s.warnings).to.deep.equal(['app.ini: unknown key [repository.pull-request] CLOSE_KEYWRODS is ignored (did you mean CLOSE_KEYWORDS?)']);
  });

  it('takes a FORGE__ variable over app.ini, for dotted sections too', () => {
    const s = loadSettings(ini(`[server]\nAPP_DATA_PATH = ${dir}/data\n[git.timeout]\nDEFAULT = 42\n`), { FORGE__GIT_0X2E_TIMEOUT__DEFAULT: '43' });
    expect(s.gitTimeout.default).to.equal(43);
  });

  it('names the key of a bad value in a dotted section', () => {
    expect(() => loadSettings(ini(`[server]\nAPP_DATA_PATH = ${dir}/data\n[repository.signing]\nSIGNING_FORMAT = x509\n`), {}))
      .to.throw(ConfigError, '[repository.signing] SIGNING_FORMAT: "x509" is not one of openpgp, ssh');
  });

  it('reads the package quotas as Gitea reads sizes, -1 for none, and names a bad one', () => {
    const s = loadSettings(ini([
      '[server]', `APP_DATA_PATH = ${dir}/data`,
      '[packages]', 'LIMIT_TOTAL_OWNER_SIZE = 500 MiB', 'LIMIT_SIZE_GO = 2GB', 'LIMIT_TOTAL_OWNER_COUNT = 10', '',
    ].join('\n')), {});
    expect(s.packages).to.deep.include({ limitTotalOwnerSize: 500 * 2 ** 20, limitTotalOwnerCount: 10, path: path.join(dir, 'data', 'packages') });
    expect(s.packages.limitSize).to.deep.equal({ alpine: -1, cran: -1, debian: -1, go: 2e9, rpm: -1 });
    expect(() => loadSettings(ini(`[server]\nAPP_DATA_PATH = ${dir}/data\n[packages]\nLIMIT_SIZE_CRAN = lots\n`), {})).to.throw(ConfigError, /\[packages\] LIMIT_SIZE_CRAN: "lots" is not a size/);
  });
});
