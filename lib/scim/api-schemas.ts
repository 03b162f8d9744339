import * as z from '../zod';
import type { ScimTokenView } from './tokens';

/** docs/api.md 13.3: a SCIM token's record, never the token or its hash. */
export const scimToken = z.strictObject({ id: z.string(), name: z.string(), createdAt: z.string() }) satisfies z.ZodMiniType<ScimTokenView>;
export const scimTokenCreated = z.strictObject({ scimToken, token: z.string() });
export const scimTokenList = z.strictObject({ scimTokens: z.array(scimToken) });
/** A SCIM document (RFC 7643/7644), described there; `application/scim+json`. */
export const scimResource = z.looseObject({ schemas: z.array(z.string()) });
