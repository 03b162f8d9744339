import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { AppError } from '../errors';
import type { Reply } from '../http/reply';
import { decideDevice, enterUserCode } from '../oauth/device-approval';
import { displayUserCode, normalizeUserCode } from '../oauth/device-code';
import * as z from '../zod';
import { DeviceCodePage, DeviceConfirmPage, DeviceDonePage } from './device-pages';
import { clientName, type HostedDeps } from './flow';
import { browserRedirect, page } from './http';
import { browserForForm, browserForPage } from './page-session';
import { tenantName } from './tenant-name';

/*
 * The device page (docs/api.md 16.4, RFC 8628 3.3): GET /device shows the code form to a
 * signed-in browser (the tenant's hosted sign-in first); POST /device with the code shows
 * the app and its scopes, and with a decision records it.
 */

/** GET /device's query: the tenant whose sign-in comes first, and the code of verification_uri_complete. */
export const deviceQuery = z.object({
  tenant: z.optional(z.string().check(z.maxLength(64))),
  user_code: z.optional(z.string().check(z.maxLength(64))),
  /** Where a decision's form ends (a redirect after the POST): what the person decided. */
  done: z.optional(z.enum(['allowed', 'denied'])),
});

/** The device page's form: the code, and once the app was shown, the decision. */
export const deviceForm = z.strictObject({
  csrf: z.string().check(z.minLength(1), z.maxLength(128)),
  user_code: z.string().check(z.maxLength(64)),
  decision: z.optional(z.enum(['allow', 'deny'])),
});

/** The page's own path with the query it was opened with, for the sign-in to come back to. */
function pagePath(query: z.output<typeof deviceQuery>): string {
  const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return search.size === 0 ? '/device' : `/device?${search}`;
}

/** GET /device: the code form, filled in with the link's code when it is one; or what was just decided. */
export async function showDevicePage(deps: HostedDeps, event: APIGatewayProxyEventV2, query: z.output<typeof deviceQuery>): Promise<Reply> {
  const browser = await browserForPage(deps, event, pagePath(query));
  if ('reply' in browser) return browser.reply;
  const { user, csrf } = browser.signedIn;
  const tenant = await tenantName(deps, user.tenantId);
  if (query.done !== undefined) return page(200, <DeviceDonePage tenant={tenant} allowed={query.done === 'allowed'} />);
  const code = query.user_code === undefined ? undefined : normalizeUserCode(query.user_code);
  return page(200, <DeviceCodePage tenant={tenant} username={user.username} userCode={code && displayUserCode(code)} csrf={csrf} />);
}

/**
 * POST /device: the form of a signed-in browser (Origin, session, CSRF). A code not right
 * shows the form again with the reason; the other refusals (another organization's code,
 * expired, used, too many wrong codes) are the error page with their status. A decision
 * ends in a redirect (303) to the page that says what was decided.
 */
export async function submitDeviceForm(deps: HostedDeps, event: APIGatewayProxyEventV2, form: z.output<typeof deviceForm>): Promise<Reply> {
  const browser = await browserForForm(deps, event, form.csrf);
  let entered: Awaited<ReturnType<typeof enterUserCode>>;
  try {
    entered = await enterUserCode(deps, browser, form.user_code);
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'INVALID_USER_CODE')) throw error;
    const tenant = await tenantName(deps, browser.user.tenantId);
    return page(400, <DeviceCodePage tenant={tenant} username={browser.user.username} error={error.message} csrf={browser.csrf} />);
  }
  if (form.decision === undefined) {
    return page(
      200,
      <DeviceConfirmPage
        tenant={await tenantName(deps, browser.user.tenantId)}
        clientName={clientName(entered.client)}
        username={browser.user.username}
        scopes={entered.authorization.scope}
        userCode={displayUserCode(entered.userCode)}
        csrf={browser.csrf}
      />,
    );
  }
  const allowed = form.decision === 'allow';
  await decideDevice(deps, browser, entered, allowed ? 'approved' : 'denied');
  // Post, redirect, get: reloading the answer shows it again rather than posting the decision twice.
  return browserRedirect(`${deps.config.issuer}/device?done=${allowed ? 'allowed' : 'denied'}`, { afterForm: true });
}
