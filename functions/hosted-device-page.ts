import { type Deps, defaultDeps } from '../lib/deps';
import { ValidationError } from '../lib/errors';
import { deviceQuery, showDevicePage } from '../lib/hosted/device-flow';
import { hostedPage } from '../lib/hosted/http';
import { noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';

export const query = deviceQuery;

/** GET /device (docs/api.md 16.4): the device page; the tenant's hosted sign-in first. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...hostedPage, query }, ({ deps, event, query }) => showDevicePage(deps, event, query));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '16.4',
  summary: 'Device page: type the code a device shows (the hosted sign-in first)',
  tag: 'oauth2',
  caller: 'none',
  query: true,
  html: true,
  answers: [{ status: 200, description: 'The code form, or the tenant’s sign-in page.', headers: noStore }],
  failures: [new ValidationError('Open this page from your organization’s link', { code: 'TENANT_REQUIRED' })],
};
