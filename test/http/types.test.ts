import { describe, expect, it } from 'vitest';
import { OAUTH_ERROR_CODES, OAuthError } from '../../lib/errors';

/*
 * Type tests: tsc (npx tsc --noEmit) is what runs them. Each `@ts-expect-error` fails the
 * compilation if the line under it ever compiles, that is if a wrong shape is accepted.
 */

describe('closed OAuth error codes', () => {
  it('takes only the RFC codes the endpoints answer with', () => {
    expect(OAUTH_ERROR_CODES.map((code) => new OAuthError(400, 'x', code).oauthCode)).toEqual(OAUTH_ERROR_CODES);
    // @ts-expect-error: not an RFC 6749 5.2 code
    const refused = () => new OAuthError(400, 'x', 'invalid_grant_type');
    expect(refused).toBeTypeOf('function');
  });
});
