import { expect } from 'vitest';
import type { AuditActor } from '../../lib/audit/events';
import type { EventType } from '../../lib/events/catalogue';
import type { TestDeps } from './deps';
import { eventCount, lastEvents } from './events';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A whole CloudEvent of the tenant as its outbox holds it (docs/events.md, The envelope). */
export const cloudEvent = (
  deps: TestDeps,
  tenantId: string,
  type: EventType,
  subject: string,
  actor: AuditActor,
  data: Record<string, unknown> = {},
) => ({
  specversion: '1.0',
  id: expect.any(String),
  source: deps.config.issuer,
  type,
  time: expect.stringMatching(ISO),
  subject,
  tenantid: tenantId,
  datacontenttype: 'application/json',
  sequence: expect.stringMatching(/^[1-9]\d*$/),
  data: { ...data, actor },
});

/**
 * Runs `act` and asserts what it emitted for `subject`: exactly `expected`, the events of
 * one write, numbered right after the subject's earlier events ([]: none at all).
 */
export async function emits(deps: TestDeps, tenantId: string, subject: string, act: () => Promise<unknown>, expected: unknown[]) {
  const before = await eventCount(deps, tenantId, subject);
  await act();
  expect(await eventCount(deps, tenantId, subject)).toBe(before + expected.length);
  if (expected.length === 0) return;
  const events = await lastEvents(deps, tenantId, subject);
  expect(events).toEqual(expected);
  expect(events.map((event) => event.sequence)).toEqual(expected.map((_, i) => String(before + 1 + i)));
}
