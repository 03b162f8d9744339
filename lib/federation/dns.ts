import { Resolver } from 'node:dns/promises';
import type { Config } from '../config';

/*
 * The TXT lookup of domain verification (docs/api.md 14.2). A DNS server that does not
 * answer must not hold the function until Lambda kills it (10 s): each query waits
 * `QUERY_TIMEOUT_MS`, is sent `TRIES` times, and the whole lookup is cancelled after
 * `LOOKUP_DEADLINE_MS` whatever c-ares would still try.
 */

const QUERY_TIMEOUT_MS = 1000;
const TRIES = 2;
/** Well within the function's 10 s, with the reads and the transaction of verification after it. */
export const LOOKUP_DEADLINE_MS = 3000;

/** The answer says there is no such record (the name or the type): not a fault, the record is simply not there. */
const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN', 'ENONAME']);

/** The DNS servers did not answer (or not usefully): nothing can be said about the record. */
export class DnsUnavailableError extends Error {
  override name = 'DnsUnavailableError';
  constructor(readonly code: string) {
    super(`DNS lookup failed: ${code}`);
  }
}

/**
 * The TXT records at `name` (each record's strings joined, RFC 7208 3.3), from the
 * servers of `DNS_SERVERS` or else the system's; empty when the name or the record does
 * not exist. Throws DnsUnavailableError when no server answered in time or one failed.
 */
export async function lookupTxt(config: Pick<Config, 'dnsServers'>, name: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: TRIES });
  if (config.dnsServers.length > 0) resolver.setServers(config.dnsServers);
  const deadline = setTimeout(() => resolver.cancel(), LOOKUP_DEADLINE_MS);
  try {
    const records = await resolver.resolveTxt(name);
    return records.map((chunks) => chunks.join(''));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && ABSENT.has(code)) return [];
    throw new DnsUnavailableError(typeof code === 'string' ? code : 'EUNKNOWN');
  } finally {
    clearTimeout(deadline);
  }
}
