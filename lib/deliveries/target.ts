import { lookup, Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Config } from '../config';
import { isDeliverableAddress, isLoopback } from './addresses';

/** Of a DNS query, and of the whole resolution of a delivery's host (docs/api.md 17.2). */
const QUERY_TIMEOUT_MS = 1000;
export const RESOLVE_DEADLINE_MS = 2000;

export type TargetSettings = Pick<Config, 'dnsServers' | 'loopbackIdentityProviders'>;

/** Why a delivery's URL was not connected to: a closed list, the delivery log's `error`. */
export type RefusedTarget = 'invalid_url' | 'dns_failed' | 'address_refused';

/** The address a delivery connects to: checked, and then the only one it connects to (no second lookup). */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * The addresses of `hostname`: from the servers of `DNS_SERVERS` when set (the tests'
 * DNS server), else from the system's resolver. Throws when there are none.
 */
async function addressesOf(settings: TargetSettings, hostname: string): Promise<string[]> {
  if (settings.dnsServers.length === 0) return (await lookup(hostname, { all: true, verbatim: true })).map((one) => one.address);
  const resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: 1 });
  resolver.setServers(settings.dnsServers);
  const deadline = setTimeout(() => resolver.cancel(), RESOLVE_DEADLINE_MS);
  try {
    const answers = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
    if (addresses.length === 0) throw new Error('No address');
    return addresses;
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * Where a delivery to `url` may connect (docs/api.md 17.2): `https` (or `http` to
 * loopback under `npm start`), no credentials in the URL, and every address its host
 * resolves to public (loopback too under `npm start`). A host that resolves to one
 * refused address among public ones is refused: the connection could land on either.
 */
export async function checkTarget(settings: TargetSettings, raw: string): Promise<CheckedTarget | RefusedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'invalid_url';
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) return 'invalid_url';
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(hostname) ? [hostname] : await addressesOf(settings, hostname);
  } catch {
    return 'dns_failed';
  }
  const allowLoopback = settings.loopbackIdentityProviders;
  if (!addresses.every((address) => isDeliverableAddress(address, allowLoopback))) return 'address_refused';
  if (url.protocol === 'http:' && !(allowLoopback && addresses.every(isLoopback))) return 'invalid_url';
  const [address] = addresses as [string, ...string[]];
  return { url, address, family: isIP(address) === 6 ? 6 : 4 };
}
