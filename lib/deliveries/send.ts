import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { OutgoingRequest } from './delivery';
import { checkTarget, type RefusedTarget, type TargetSettings } from './target';

/** docs/api.md 17.2: the bounds of one attempt. */
export const ATTEMPT_LIMITS = {
  /** Until the connection (and TLS) is up. */
  connectMs: 3000,
  /** The whole attempt, from the lookup to the last byte read. */
  totalMs: 5000,
  /** Of the answer's body: read this far at most, then the connection is closed. */
  maxAnswerBytes: 64 * 1024,
};
export type AttemptLimits = typeof ATTEMPT_LIMITS;

/** Why an attempt failed without an answer: a closed list, recorded in the delivery log (never a body or secret). */
export type AttemptError = RefusedTarget | 'connect_timeout' | 'timeout' | 'connection_failed';

/** What came of one attempt: `delivered` for a 2xx answer; a 3xx is a failure (no redirect is followed). */
export interface AttemptOutcome {
  delivered: boolean;
  status?: number;
  error?: AttemptError;
}

/**
 * Sends one attempt's request (docs/api.md 17.2): the URL is checked again now, and the
 * connection goes to the address checked, never to a second lookup (a DNS answer that
 * changes between check and connect cannot win). At most `maxAnswerBytes` of the answer
 * are read; a receiver that is slow or never ends costs at most `totalMs`.
 */
export async function sendAttempt(
  settings: TargetSettings,
  request: OutgoingRequest,
  limits: AttemptLimits = ATTEMPT_LIMITS,
): Promise<AttemptOutcome> {
  const started = Date.now();
  const target = await checkTarget(settings, request.url);
  if (typeof target === 'string') return { delivered: false, error: target };
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(whole);
      clearTimeout(connecting);
      outgoing.destroy();
      resolve(outcome);
    };
    const whole = setTimeout(() => finish({ delivered: false, error: 'timeout' }), Math.max(0, limits.totalMs - (Date.now() - started)));
    const connecting = setTimeout(() => finish({ delivered: false, error: 'connect_timeout' }), limits.connectMs);
    const outgoing = send(target.url, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      lookup: pinned,
      agent: false,
      // TLS checks the certificate against the URL's host name (SNI names no IP literal).
      ...(target.url.protocol === 'https:' && !isIP(target.url.hostname.replace(/^\[|\]$/g, ''))
        ? { servername: target.url.hostname }
        : {}),
    });
    outgoing.on('socket', (socket) => {
      socket.once(target.url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connecting));
    });
    outgoing.on('response', (answer) => {
      clearTimeout(connecting);
      const status = answer.statusCode ?? 0;
      let read = 0;
      answer.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= limits.maxAnswerBytes) finish({ delivered: status >= 200 && status < 300, status });
      });
      answer.on('end', () => finish({ delivered: status >= 200 && status < 300, status }));
      answer.on('error', () => finish({ delivered: false, status, error: 'connection_failed' }));
    });
    outgoing.on('error', () => finish({ delivered: false, error: 'connection_failed' }));
    outgoing.end(request.body);
  });
}
