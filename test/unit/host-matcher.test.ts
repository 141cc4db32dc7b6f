/**
 * The webhook host allow list: builtins, CIDRs and globs, matched against the URL's host name and
 * the address dialed, with Gitea's (Go's) idea of external, private and loopback addresses; the
 * SSRF addresses of security class 9 refused under the default.
 */
import { expect } from 'chai';
import { hostAllowed, parseHostList } from '../../src/services/net/host-matcher';

describe('webhook host allow list', () => {
  it('allows only external addresses by default', () => {
    const d = parseHostList('');
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '0.0.0.0', '169.254.169.254', '10.1.2.3', '172.20.0.1', '192.168.1.1', 'fd00::1', 'fe80::1', '224.0.0.1']) {
      expect(hostAllowed(d, 'x.example', ip), ip).to.equal(false);
    }
    for (const ip of ['93.184.216.34', '2606:2800:220:1::1', '100.64.0.1']) expect(hostAllowed(d, 'x.example', ip), ip).to.equal(true);
    expect(hostAllowed(d, 'x.example', null)).to.equal(false);
  });

  it('reads loopback, private, CIDRs and globs, by name or by address', () => {
    const l = parseHostList('loopback, 203.0.113.0/24, *.hooks.example, 198.51.100.*');
    expect(hostAllowed(l, 'localhost', '127.0.0.1')).to.equal(true);
    expect(hostAllowed(l, 'localhost', '::ffff:127.0.0.1')).to.equal(true);
    expect(hostAllowed(l, 'a', '203.0.113.9')).to.equal(true);
    expect(hostAllowed(l, 'a.hooks.example', '10.0.0.1')).to.equal(true);
    expect(hostAllowed(l, 'hooks.example', '10.0.0.1')).to.equal(false);
    expect(hostAllowed(l, 'a', '198.51.100.7')).to.equal(true);
    expect(hostAllowed(l, 'a', '93.184.216.34')).to.equal(false);
    expect(hostAllowed(parseHostList('private'), 'a', '192.168.0.5')).to.equal(true);
    expect(hostAllowed(parseHostList('*'), 'a', '127.0.0.1')).to.equal(true);
  });
});
