/**
 * The license detector of the worker pool: SPDX texts, filled-in and reflowed copies, the
 * SPDX-License-Identifier line, ids that share one text, and texts that are no license.
 */
import { expect } from 'chai';
import { bestLicense, detectLicenseIds, normalizeLicenseText } from '../../workers/tasks/licenses';

const spdx = require('spdx-license-list/full') as Record<string, { licenseText: string }>;

describe('license detection', () => {
  it('recognizes the common licenses from their SPDX texts', () => {
    for (const id of ['MIT', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', 'MPL-2.0', 'ISC', 'Unlicense', '0BSD', 'LGPL-2.1-only', 'CC0-1.0']) {
      expect(bestLicense(spdx[id].licenseText)?.id, id).to.equal(id);
    }
  });

  it('reports the current, narrower id for texts several ids share', () => {
    expect(detectLicenseIds([spdx['GPL-3.0-or-later'].licenseText])).to.deep.equal(['GPL-3.0-only']);
    expect(detectLicenseIds([spdx['AGPL-3.0-only'].licenseText])).to.deep.equal(['AGPL-3.0-only']);
  });

  it('sees through a filled-in copyright line, reflowed lines, British spelling and curly quotes', () => {
    const mit = spdx.MIT.licenseText.replace('<year>', '2026').replace('<copyright holders>', 'Jane Doe and contributors');
    const changed = mit.replace(/\n/g, ' ').replace(/license/gi, 'Licence').replace(/"/g, '\u201c');
    const best = bestLicense(changed);
    expect(best?.id).to.equal('MIT');
    expect(best!.score).to.be.greaterThan(0.9);
    expect(normalizeLicenseText('Copyright (c) 2026 Someone\nThe LICENCE, “as is”.')).to.deep.equal(['the', 'license', 'as', 'is']);
  });

  it('takes the ids an SPDX-License-Identifier line names, and finds nothing in other text', () => {
    expect(detectLicenseIds(['// SPDX-License-Identifier: (MIT OR Apache-2.0) AND NotAnId'])).to.deep.equal(['Apache-2.0', 'MIT']);
    expect(detectLicenseIds(['All rights reserved. Do not copy this software without written permission of the owner.'])).to.deep.equal([]);
    expect(detectLicenseIds([`${spdx.MIT.licenseText.slice(0, 200)} and then something else entirely`])).to.deep.equal([]);
    expect(detectLicenseIds([spdx.MIT.licenseText, spdx['Apache-2.0'].licenseText, spdx.MIT.licenseText])).to.deep.equal(['Apache-2.0', 'MIT']);
  });
});
