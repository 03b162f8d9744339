import * as z from '../zod';

/**
 * A WebAuthn credential as the browser's `PublicKeyCredential.toJSON()` gives it
 * (`RegistrationResponseJSON`, `AuthenticationResponseJSON`): an object here, checked
 * field by field by the ceremony, so that a malformed one is refused like a wrong one.
 */
export const credential = z.record(z.string(), z.unknown());

/** A passkey's name as its owner gives it (docs/api.md 12.2). */
export const passkeyName = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));

const descriptor = z.strictObject({ type: z.literal('public-key'), id: z.string(), transports: z.optional(z.array(z.string())) });

/** docs/api.md 12.1: `PublicKeyCredentialCreationOptionsJSON` as the service fills it. */
export const registrationOptions = z.strictObject({
  options: z.strictObject({
    rp: z.strictObject({ id: z.string(), name: z.string() }),
    user: z.strictObject({ id: z.string(), name: z.string(), displayName: z.string() }),
    challenge: z.string(),
    pubKeyCredParams: z.array(z.strictObject({ type: z.literal('public-key'), alg: z.number().check(z.int()) })),
    timeout: z.number().check(z.int()),
    excludeCredentials: z.array(descriptor),
    authenticatorSelection: z.strictObject({
      residentKey: z.literal('required'),
      requireResidentKey: z.literal(true),
      userVerification: z.literal('required'),
    }),
    attestation: z.literal('none'),
    hints: z.array(z.string()),
  }),
});

/** docs/api.md 12.5: `PublicKeyCredentialRequestOptionsJSON`. */
export const authenticationOptions = z.strictObject({
  options: z.strictObject({
    challenge: z.string(),
    rpId: z.string(),
    timeout: z.number().check(z.int()),
    allowCredentials: z.array(descriptor),
    userVerification: z.literal('required'),
  }),
});
