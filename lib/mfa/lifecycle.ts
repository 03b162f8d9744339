import { type AuditDeps, bySelf, recordEvent } from '../audit/record';
import { epochSeconds } from '../clock';
import type { Deps } from '../deps';
import { ServiceUnavailableError, ValidationError } from '../errors';
import { selfEvent } from '../events/self';
import { type Account, recoveryContext } from './account';
import { maskDestination } from './masking';
import { MFA_METHODS, type MfaEnrollment, type MfaMethod, type MfaStatus } from './methods';
import { compactRecoveryCode, generateRecoveryCodes, type RecoveryCodes, remainingCodes } from './recovery-codes';
import { announceMfaEvent } from './security-events';

type LifecycleDeps = Pick<Deps, 'config' | 'clock' | 'random' | 'log' | 'store' | 'mfaSecrets' | 'mfaDelivery'> & AuditDeps;

/** Tries of a write whose check met a concurrent change, before 503. */
const ATTEMPTS = 3;

export interface MfaMethodView {
  method: MfaMethod;
  status: MfaStatus;
  /** SMS/EMAIL: the phone number or address, masked; TOTP: null. */
  destination: string | null;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601 of the last accepted code, or null. */
  lastUsedAt: string | null;
}

/** The `mfa` object of docs/api.md 8.6 (and of the account, 8.5). */
export interface MfaSummary {
  methods: MfaMethodView[];
  recoveryCodesRemaining: number;
}

const isoOf = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();
const notEnabled = () => new ValidationError('MFA method not enabled', { code: 'MFA_METHOD_NOT_ENABLED' });

/** A user's methods (oldest first, then in the order TOTP, SMS, EMAIL) and unused recovery codes, as the user may see them: never a secret or a code. */
export function mfaSummary(methods: MfaEnrollment[], recovery: RecoveryCodes | undefined): MfaSummary {
  return {
    methods: [...methods]
      .sort((a, b) => a.createdAt - b.createdAt || MFA_METHODS.indexOf(a.method) - MFA_METHODS.indexOf(b.method))
      .map((enrollment) => ({
        method: enrollment.method,
        status: enrollment.status,
        destination: enrollment.method === 'TOTP' ? null : maskDestination(enrollment.destination),
        createdAt: isoOf(enrollment.createdAt),
        lastUsedAt: enrollment.lastUsedAt === undefined ? null : isoOf(enrollment.lastUsedAt),
      })),
    recoveryCodesRemaining: remainingCodes(recovery),
  };
}

/** GET /auth/mfa (docs/api.md 8.6). */
export async function listMfa(deps: Pick<Deps, 'store'>, { tenantId, userId }: Account): Promise<{ mfa: MfaSummary }> {
  const [methods, recovery] = await Promise.all([deps.store.mfa.list(tenantId, userId), deps.store.mfa.recoveryCodes(tenantId, userId)]);
  return { mfa: mfaSummary(methods, recovery) };
}

/**
 * disableMFA (docs/api.md 8.6): removes an active method (400 `MFA method not enabled`
 * otherwise). The last one takes the recovery codes with it, in the same transaction,
 * which also checks that the methods read as active still are: two disables at once
 * never leave recovery codes without a method.
 */
export async function disableMfa(deps: LifecycleDeps, account: Account, method: MfaMethod): Promise<{ message: 'MFA disabled' }> {
  const { tenantId, userId } = account;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const active = (await deps.store.mfa.list(tenantId, userId)).filter((enrollment) => enrollment.status === 'active');
    if (!active.some((enrollment) => enrollment.method === method)) throw notEnabled();
    const others = active.filter((enrollment) => enrollment.method !== method).map((enrollment) => enrollment.method);
    const removed = selfEvent(deps, account, 'identity.mfa.method_removed', { method });
    if (await deps.store.emitting([removed]).mfa.disable(tenantId, userId, method, others)) {
      await Promise.all([
        recordEvent(deps, { ...bySelf(account), type: 'mfa_method_removed', outcome: 'success', details: { method } }),
        announceMfaEvent(deps, account, { event: 'mfa_method_removed', method }),
      ]);
      return { message: 'MFA disabled' };
    }
  }
  throw new ServiceUnavailableError();
}

/**
 * generateRecoveryCodes (docs/api.md 8.6): 10 new codes, answered once and stored only as
 * keyed digests, in place of any earlier set; the user needs an active method (400
 * `MFA method not enabled`), checked in the same transaction as the write.
 */
export async function createRecoveryCodes(deps: LifecycleDeps, account: Account): Promise<{ codes: string[] }> {
  const { tenantId, userId } = account;
  const codes = generateRecoveryCodes(deps.random);
  const context = recoveryContext(account);
  const digests = await Promise.all(codes.map((code) => deps.mfaSecrets.digest(compactRecoveryCode(code), context)));
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const active = (await deps.store.mfa.list(tenantId, userId)).find((enrollment) => enrollment.status === 'active');
    if (!active) throw notEnabled();
    const generated = deps.store.emitting([selfEvent(deps, account, 'identity.mfa.recovery_codes_generated')]);
    if (await generated.mfa.replaceRecoveryCodes(tenantId, userId, { digests, generatedAt: epochSeconds(deps.clock) }, active.method)) {
      await Promise.all([
        recordEvent(deps, { ...bySelf(account), type: 'recovery_codes_generated', outcome: 'success' }),
        announceMfaEvent(deps, account, { event: 'recovery_codes_generated' }),
      ]);
      return { codes };
    }
  }
  throw new ServiceUnavailableError();
}
