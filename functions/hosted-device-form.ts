import { type Deps, defaultDeps } from '../lib/deps';
import { deviceForm, submitDeviceForm } from '../lib/hosted/device-flow';
import { hostedPage } from '../lib/hosted/http';
import { pageExpired, signInAgain } from '../lib/hosted/page-session';
import { hostedFailures, noStore, type OperationDoc } from '../lib/http/operation-doc';
import { pageHandler } from '../lib/http/page-handler';
import { deviceCodeErrors } from '../lib/oauth/device-approval';

/** The form (application/x-www-form-urlencoded). */
export const body = deviceForm;

/** POST /device (docs/api.md 16.4): a code typed on the device page, then the decision on it. */
export function makeHandler(deps: Deps) {
  return pageHandler(deps, { ...hostedPage, body }, ({ deps, event, body }) => submitDeviceForm(deps, event, body));
}

export const handler = makeHandler(defaultDeps());

/** This operation in docs/openapi.json (scripts/lib/openapi.ts renders it). */
export const operation: OperationDoc = {
  section: '16.4',
  summary: 'Device page form: the code, then allow or deny the device',
  tag: 'oauth2',
  caller: 'none',
  bodyTypes: ['form'],
  html: true,
  answers: [
    { status: 200, description: 'The app and its scopes to allow or deny.', headers: noStore },
    {
      status: 303,
      description: 'The decision recorded: on to `/device?done=allowed` or `done=denied`.',
      headers: { Location: undefined, ...noStore },
    },
  ],
  failures: hostedFailures(
    signInAgain(),
    pageExpired(),
    deviceCodeErrors.wrong(),
    deviceCodeErrors.otherTenant(),
    deviceCodeErrors.expired(),
    deviceCodeErrors.used(),
    deviceCodeErrors.tooMany(900),
  ),
};
