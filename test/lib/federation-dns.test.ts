import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../lib/config';
import { DnsUnavailableError, LOOKUP_DEADLINE_MS, lookupTxt } from '../../lib/federation/dns';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';

describe('the TXT lookup of domain verification (docs/api.md 14.2)', () => {
  let dns: TestDnsServer;
  const config = () => ({ dnsServers: [dns.address] });

  beforeAll(async () => {
    dns = await startDnsServer();
  });
  afterAll(() => dns.close());

  it('answers every TXT record at the name, the character-strings of one record joined', async () => {
    dns.txt.set('_identity-verification.acme.example', ['v=spf1 -all', ['identity-verification=', 'abc']]);
    expect(await lookupTxt(config(), '_identity-verification.acme.example')).toEqual(['v=spf1 -all', 'identity-verification=abc']);
    expect(dns.queries.at(-1)).toBe('_identity-verification.acme.example');
  });

  it('answers no records for a name that does not exist', async () => {
    expect(await lookupTxt(config(), 'missing.acme.example')).toEqual([]);
  });

  it('gives up on a server that does not answer within the deadline', async () => {
    dns.silent = true;
    const started = Date.now();
    try {
      await expect(lookupTxt(config(), 'slow.acme.example')).rejects.toBeInstanceOf(DnsUnavailableError);
    } finally {
      dns.silent = false;
    }
    expect(Date.now() - started).toBeLessThan(LOOKUP_DEADLINE_MS + 500);
  });

  it('reads DNS_SERVERS as IP address:port pairs, and refuses anything else', () => {
    expect(readConfig({}).dnsServers).toEqual([]);
    expect(readConfig({ DNS_SERVERS: '127.0.0.1:5353, [::1]:53' }).dnsServers).toEqual(['127.0.0.1:5353', '[::1]:53']);
    for (const bad of ['localhost:53', '127.0.0.1', '127.0.0.1:0', '127.0.0.1:70000', '::1:53', '[127.0.0.1]:53', '1.2.3.4:53;rm']) {
      expect(() => readConfig({ DNS_SERVERS: bad }), bad).toThrow(ConfigError);
    }
  });
});
