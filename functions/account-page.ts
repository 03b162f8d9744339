import { ACCOUNT_AREA } from '../lib/console/account/registry';
import { showSection } from '../lib/console/frame';
import { consolePageAnswers, consoleRoute } from '../lib/console/http';
import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError, ValidationError } from '../lib/errors';
import type { OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';
import * as z from '../lib/zod';

/** The section of the path: checked against the registry (an unknown one is the 404 page). */
export const params = z.object({ section: z.optional(z.string().check(z.maxLength(100))) });

/** GET /account and GET /account/{section} (docs/api.md 15.1, 15.2): a page of the signed-in user’s account. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...consoleRoute, params }, ({ deps, event, params }) =>
    showSection(deps, event, ACCOUNT_AREA, params.section),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '15.2',
  summary: 'Account page: a section’s page for the signed-in user (else the hosted sign-in first)',
  tag: 'auth',
  caller: 'none',
  html: true,
  params: true,
  answers: consolePageAnswers,
  failures: [new ValidationError('Open this page from your organization’s link', { code: 'TENANT_REQUIRED' }), new NotFoundError()],
};
