import { ACCOUNT_AREA } from '../lib/console/account/registry';
import { pageFormBody, runAction } from '../lib/console/frame';
import { consoleActionAnswers, consoleRoute } from '../lib/console/http';
import { type Deps, defaultDeps } from '../lib/deps';
import { NotFoundError } from '../lib/errors';
import { crossSite } from '../lib/hosted/http';
import { pageExpired, signInAgain } from '../lib/hosted/page-session';
import type { OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';
import * as z from '../lib/zod';

/** The form (application/x-www-form-urlencoded): each action parses its own fields. */
export const body = pageFormBody;
export const params = z.object({ section: z.string().check(z.maxLength(100)), action: z.string().check(z.maxLength(100)) });

/** POST /account/{section}/{action} (docs/api.md 15.1, 15.2): a form of the account page. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...consoleRoute, body, params }, ({ deps, event, params, body }) =>
    runAction(deps, event, ACCOUNT_AREA, params, body),
  );
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '15.2',
  summary: 'Account page form: runs a section’s action for the signed-in user, then back to the section (303)',
  tag: 'auth',
  caller: 'none',
  bodyTypes: ['form'],
  html: true,
  params: true,
  answers: consoleActionAnswers,
  failures: [crossSite(), signInAgain(), pageExpired(), new NotFoundError()],
};
