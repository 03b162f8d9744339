import type { Deps } from '../deps';
import { type MfaEnrollment, type MfaMethod, type MfaStatus, maskDestination } from './methods';
import { TOTP_SETTINGS } from './totp';

/** One MFA method as its owner sees it (docs/api.md 8.5): never a secret, a code or a full destination. */
export interface MfaMethodView {
  method: MfaMethod;
  status: MfaStatus;
  /** SMS and EMAIL: the destination masked (lib/mfa/methods.ts `maskDestination`); TOTP: null. */
  destination: string | null;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601 of the last accepted code, where the method records it; else null. */
  lastUsedAt: string | null;
}

/** The `mfa` object of the account (docs/api.md 8.5), also the answer of the MFA list. */
export interface MfaSummary {
  methods: MfaMethodView[];
  /** Recovery codes are not issued yet: 0. */
  recoveryCodesRemaining: number;
}

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

/** When a method's code was last accepted: a TOTP method keeps its last time step (its start, to 30 s). */
function lastUsed(enrollment: MfaEnrollment): number | undefined {
  if ('lastUsedAt' in enrollment && typeof enrollment.lastUsedAt === 'number') return enrollment.lastUsedAt;
  if (enrollment.method === 'TOTP' && enrollment.lastTimeStep !== undefined) return enrollment.lastTimeStep * TOTP_SETTINGS.period;
  return undefined;
}

export function mfaMethodView(enrollment: MfaEnrollment): MfaMethodView {
  const used = lastUsed(enrollment);
  return {
    method: enrollment.method,
    status: enrollment.status,
    destination: enrollment.method === 'TOTP' ? null : maskDestination(enrollment.destination),
    createdAt: iso(enrollment.createdAt),
    lastUsedAt: used === undefined ? null : iso(used),
  };
}

/** The user's MFA methods (pending and active, in the store's order) and recovery codes, as the user may see them. */
export async function mfaSummary(deps: Pick<Deps, 'store'>, user: { tenantId: string; id: string }): Promise<MfaSummary> {
  const methods = await deps.store.mfa.list(user.tenantId, user.id);
  return { methods: methods.map(mfaMethodView), recoveryCodesRemaining: 0 };
}
