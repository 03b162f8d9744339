import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as dnsPacket from 'dns-packet';

/**
 * A DNS server on a loopback UDP port that answers TXT (and A, AAAA) queries from maps the test
 * changes (docs/api.md 14.2: domain verification asks it through `DNS_SERVERS`). A name
 * not in the map is NXDOMAIN; `silent` drops every query, as a dead server does.
 */
export interface TestDnsServer {
  /** `127.0.0.1:<port>`, the value of DNS_SERVERS. */
  address: string;
  /** TXT records by name (lower-case, no trailing dot); a record is one string, or its character-strings. */
  txt: Map<string, Array<string | string[]>>;
  /** Addresses by name: IPv4 ones answer A queries, IPv6 ones AAAA (webhook hosts, docs/api.md 17.2). */
  addresses: Map<string, string[]>;
  /** Drop every query unanswered. */
  silent: boolean;
  /** The names asked about, in order. */
  queries: string[];
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const socket = createSocket('udp4');
  const server: Omit<TestDnsServer, 'address' | 'close'> = { txt: new Map(), addresses: new Map(), silent: false, queries: [] };
  socket.on('message', (message, remote) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase().replace(/\.$/, '');
    server.queries.push(name);
    if (server.silent) return;
    const records = server.txt.get(name) ?? server.addresses.get(name);
    const addresses = (server.addresses.get(name) ?? []).filter((address) => address.includes(':') === (question.type === 'AAAA'));
    const answers: dnsPacket.Answer[] =
      question.type === 'TXT'
        ? (server.txt.get(name) ?? []).map((data) => ({ type: 'TXT', name: question.name, ttl: 60, data }))
        : question.type === 'A' || question.type === 'AAAA'
          ? addresses.map((data) => ({ type: question.type as 'A' | 'AAAA', name: question.name, ttl: 0, data }))
          : [];
    const reply = dnsPacket.encode({
      id: query.id,
      type: 'response',
      // Recursion desired and available, authoritative; NXDOMAIN (rcode 3) for an unknown name.
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | dnsPacket.AUTHORITATIVE_ANSWER | (records ? 0 : 3),
      questions: [question],
      answers,
    });
    socket.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return Object.assign(server, {
    address: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  });
}
