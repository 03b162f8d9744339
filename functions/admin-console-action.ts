import { CONNECTION_FORM_MAX_BYTES } from '../lib/console/admin/connection-form';
import { ADMIN_AREA } from '../lib/console/admin/registry';
import { pageFormBody, runAction } from '../lib/console/frame';
import { consoleActionAnswers, consoleRoute } from '../lib/console/http';
import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { METADATA_MAX_CHARS } from '../lib/federation/admin-input';
import { crossSite } from '../lib/hosted/http';
import { pageExpired, signInAgain } from '../lib/hosted/page-session';
import { type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';
import * as z from '../lib/zod';

/**
 * The form (application/x-www-form-urlencoded): each action parses its own fields. A
 * connection's SAML metadata (docs/api.md 15.3.7) is the largest field a console form takes.
 */
export const body = z.record(pageFormBody.def.keyType, z.string().check(z.maxLength(METADATA_MAX_CHARS)));
export const params = z.object({ section: z.string().check(z.maxLength(100)), action: z.string().check(z.maxLength(100)) });

/** POST /admin/console/{section}/{action} (docs/api.md 15.1, 15.3): a form of the tenant console. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...consoleRoute, body, params, maxBodyBytes: CONNECTION_FORM_MAX_BYTES }, ({ deps, event, params, body }) =>
    runAction(deps, event, ADMIN_AREA, params, body),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '15.3',
  summary: 'Tenant console form: runs a section’s action for a signed-in ADMIN, then back to the section (303)',
  tag: 'admin',
  caller: 'none',
  bodyTypes: ['form'],
  html: true,
  params: true,
  answers: consoleActionAnswers,
  failures: [crossSite(), signInAgain(), pageExpired(), permissionDenied, new NotFoundError()],
};
