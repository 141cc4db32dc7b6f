/**
 * The import-direction rule of docs/ARCHITECTURE.md is enforced by lint: a forbidden import fails, an allowed one passes.
 */
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '..', '..', '..');

async function problems(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import direction lint rule', () => {
  const cases: Array<[string, string, boolean]> = [
    ['src/models/x.model.ts', "import { createUser } from '../services/user/user.service';", false],
    ['src/services/user/x.ts', "import { TokenController } from '../../controllers/token.controller';", false],
    ['src/services/user/x.ts', "import { authenticate } from '../../middleware/auth';", false],
    ['src/db/x.ts', "import { can } from '../services/perm/permission';", false],
    ['src/convert/x.ts', "import { db } from '../db';", false],
    ['src/config/x.ts', "import { UserModel } from '../models/user.model';", false],
    ['workers/x.ts', "import { db } from '../src/db';", false],
    ['migrations/x.ts', "import { UserModel } from '../src/models/user.model';", false],
    ['src/controllers/x.controller.ts', "import { createUser } from '../services/user/user.service';", true],
    ['src/services/user/x.ts', "import { findUserById } from '../../models/user.model';", true],
    ['src/models/x.model.ts', "import { settings } from '../config';", true],
    ['ssh/x.ts', "import { findUserById } from '../src/models/user.model';", false],
    ['ssh/x.ts', "import { authenticate } from '../src/middleware/auth';", false],
    ['ssh/x.ts', "import { authorizeGitService } from '../src/services/git-serve/git-access';", true],
    // Domains state events through the notifier; subscribers import domains, never the other way.
    ['src/services/issue/x.ts', "import { emitIssueEvent } from '../webhook/payload';", false],
    ['src/services/repo/x.ts', "import { recordActivity } from '../activity/record';", false],
    ['src/services/pull/x.ts', "import { queueIssueNotification } from '../notification/notify';", false],
    ['src/services/history/x.ts', "import { hookRepo } from '../payload/parts';", false],
    ['src/services/actions/x.ts', "import { emitRepoEvent } from '../webhook/payload';", false],
    ['src/services/notify/x.ts', "import type { RepoContext } from '../repo/context';", false],
    ['src/services/pull/x.ts', "import { notify } from '../notify/notifier';", true],
    ['src/services/webhook/x.ts', "import { issueViews } from '../issue/view';", true],
    ['src/services/actions/x.ts', "import { hookRepo } from '../payload/parts';", true],
  ];
  for (const [file, code, allowed] of cases) {
    it(`${allowed ? 'allows' : 'refuses'} in ${file}: ${code}`, async function () {
      this.timeout(60_000);
      const found = await problems(file, `${code}\nexport const used = 1;\n`);
      if (allowed) expect(found).to.deep.equal([]);
      else expect(found).to.have.length(1);
    });
  }
});
