import { compactVerify, errors } from 'jose';
import { type PublicKeySet, SIGNING_ALGORITHMS } from '../tokens/signing-keys';
import * as z from '../zod';

/** The claims of an ID token of ours that RP-initiated logout reads (docs/api.md 11.1, 11.12). */
const hintClaims = z.object({
  iss: z.string(),
  sub: z.string().check(z.minLength(1)),
  aud: z.string().check(z.minLength(1)),
  sid: z.optional(z.string().check(z.minLength(1))),
  tenantId: z.optional(z.string()),
});

export type IdTokenHint = z.output<typeof hintClaims>;

/**
 * An ID token we issued, given back as `id_token_hint` (OpenID Connect RP-Initiated
 * Logout 1.0, section 2): its signature verifies against our keys (ES256 or RS256), its
 * header says `typ: JWT` (access tokens are `at+jwt`) and its `iss` is ours. An expired
 * one is taken (the spec allows it: the RP logs out after the token's life); undefined
 * for anything else.
 */
export async function verifyIdTokenHint(keys: PublicKeySet, issuer: string, token: string): Promise<IdTokenHint | undefined> {
  try {
    const { payload, protectedHeader } = await compactVerify(token, keys.publicKeyFor, { algorithms: [...SIGNING_ALGORITHMS] });
    if (protectedHeader.typ !== 'JWT') return undefined;
    const claims = hintClaims.safeParse(JSON.parse(Buffer.from(payload).toString('utf8')));
    return claims.success && claims.data.iss === issuer ? claims.data : undefined;
  } catch (error) {
    if (error instanceof errors.JOSEError || error instanceof SyntaxError) return undefined;
    throw error;
  }
}
