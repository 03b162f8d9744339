import { ADMIN_AREA } from '../lib/console/admin/registry';
import { showSection } from '../lib/console/frame';
import { consolePageAnswers, consoleRoute } from '../lib/console/http';
import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError, ValidationError } from '../lib/errors';
import { type OperationDoc, permissionDenied } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';
import * as z from '../lib/zod';

/** The section of the path: checked against the registry (an unknown one is the 404 page). */
export const params = z.object({ section: z.optional(z.string().check(z.maxLength(100))) });

/** GET /admin and GET /admin/console/{section} (docs/api.md 15.1, 15.3): a page of the tenant console. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...consoleRoute, params }, ({ deps, event, params }) => showSection(deps, event, ADMIN_AREA, params.section));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '15.3',
  summary: 'Tenant console: a section’s page for a signed-in ADMIN (else the hosted sign-in first; other roles get a 403 page)',
  tag: 'admin',
  caller: 'none',
  html: true,
  params: true,
  answers: consolePageAnswers,
  failures: [
    new ValidationError('Open this page from your organization’s link', { code: 'TENANT_REQUIRED' }),
    permissionDenied,
    new NotFoundError(),
  ],
};
