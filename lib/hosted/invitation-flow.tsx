import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { DEVICE_COOKIE_PATHS, deviceCookie } from '../abuse/device-token';
import { AppError } from '../errors';
import { ssoConnectionFor } from '../federation/sso-required';
import type { Reply } from '../http/reply';
import { username as usernameSchema } from '../http/schemas';
import { type Accepted, acceptedFactor, acceptInvitation, INVITATION_PATH, invitationOfToken } from '../invitations/invitations';
import { newAccountRegistrationOptions } from '../passkeys/ceremonies';
import type { Invitation } from '../store/invitations';
import * as z from '../zod';
import { browserSignIn, type HostedDeps } from './flow';
import { checkOrigin, page } from './http';
import {
  AcceptInvitationPage,
  InvalidInvitationPage,
  InvitationAcceptedPage,
  OrganizationAccountReadyPage,
  OrganizationInvitationPage,
} from './invitation-pages';
import { PASSKEYS_PAGE_PATH } from './passkey-flow';
import { PASSKEY_SCRIPT } from './passkey-pages';
import { tenantName } from './tenant-name';

/*
 * The hosted acceptance of an invitation (docs/api.md 13.1): GET /invitations/{token}
 * shows the form, POST /invitations/{token} accepts. The token in the path is the secret
 * that binds the form to its invitation; the POST must come from our own origin (the
 * Origin check of every hosted form, docs/api.md 11.8), so no other site can make a
 * browser accept an invitation and sign in to an account of its choosing.
 */

/** The path of the page: the token is one path segment. */
export const invitationToken = z.strictObject({ token: z.string().check(z.minLength(1), z.maxLength(512)) });

/** The form: fields are checked here, so a mistake shows the form again with what is wrong. */
export const acceptInvitationForm = z.strictObject({
  username: z.string().check(z.maxLength(1024)),
  /** The password form's. */
  password: z.optional(z.string().check(z.maxLength(1024))),
  /** The passkey form's: the JSON of the registration response; what does not parse is left for the ceremony to refuse. */
  credential: z.optional(z.string().check(z.maxLength(6000))),
});

const parsedCredential = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const PASSWORD = z
  .string()
  .check(z.minLength(6, 'Choose a password of at least 6 characters'), z.maxLength(128, 'Choose a password of at most 128 characters'));

/** The username the form suggests: the invitation's, else the local part of the address. */
const suggested = (invitation: Invitation) => invitation.username ?? invitation.email.split('@')[0] ?? '';

const invalid = () => page(400, <InvalidInvitationPage />);
const isInvalidInvitation = (error: unknown) => error instanceof AppError && error.code === 'INVALID_INVITATION';

async function form(deps: HostedDeps, token: string, invitation: Invitation, status: number, username: string, error?: string) {
  const tenant = await tenantName(deps, invitation.tenantId);
  const action = `${INVITATION_PATH}${token}`;
  const props = { tenant, action, email: invitation.email, role: invitation.role, username, error };
  // An address whose organization signs it in (docs/api.md 14.1): no password or passkey of ours.
  if (await ssoConnectionFor(deps, invitation.tenantId, invitation.email)) return page(status, <OrganizationInvitationPage {...props} />);
  // The first passkey's challenge is bound to the id the account will have (docs/api.md 13.1).
  const passkeyOptions = await newAccountRegistrationOptions(deps, { tenantId: invitation.tenantId, userId: deps.random.id(), username });
  const content = <AcceptInvitationPage {...props} passkeyOptions={passkeyOptions} />;
  return page(status, content, { scripts: [PASSKEY_SCRIPT] });
}

/** GET /invitations/{token}: the form, or (status 400) why the link cannot be used. */
export async function showInvitation(deps: HostedDeps, token: string): Promise<Reply> {
  try {
    const invitation = await invitationOfToken(deps, token);
    return await form(deps, token, invitation, 200, suggested(invitation));
  } catch (error) {
    if (isInvalidInvitation(error)) return invalid();
    throw error;
  }
}

/**
 * POST /invitations/{token}: creates the account (lib/invitations/invitations.ts) and
 * signs this browser in through the sign-in pipeline: a browser session and a device
 * token, as the hosted sign-in gives. Then the signed-in page; a mistake in the form (a
 * short or common password, a taken username) shows the form again with status 400.
 */
export async function submitInvitation(
  deps: HostedDeps,
  event: APIGatewayProxyEventV2,
  token: string,
  fields: z.output<typeof acceptInvitationForm>,
): Promise<Reply> {
  checkOrigin(event, deps.config.issuer);
  let invitation: Invitation;
  try {
    invitation = await invitationOfToken(deps, token);
  } catch (error) {
    if (isInvalidInvitation(error)) return invalid();
    throw error;
  }
  const username = usernameSchema.safeParse(fields.username);
  if (!username.success) return form(deps, token, invitation, 400, fields.username, `Username: ${username.error.issues[0]?.message}`);
  // The organization's invitee (docs/api.md 14.1) sends a username alone: its account has no credential of ours.
  const byOrganization =
    fields.password === undefined &&
    fields.credential === undefined &&
    (await ssoConnectionFor(deps, invitation.tenantId, invitation.email)) !== undefined;
  const password = PASSWORD.safeParse(fields.password ?? '');
  const withPasskey = fields.credential !== undefined && fields.password === undefined;
  if (!byOrganization && !withPasskey && !password.success)
    return form(deps, token, invitation, 400, username.data, password.error?.issues[0]?.message);
  let accepted: Accepted;
  try {
    accepted = await acceptInvitation(
      deps,
      token,
      byOrganization
        ? { username: username.data, organization: true }
        : withPasskey
          ? { username: username.data, credential: parsedCredential(fields.credential ?? '') }
          : { username: username.data, password: password.data ?? '' },
    );
  } catch (error) {
    if (isInvalidInvitation(error)) return invalid();
    // The form shows what is wrong: a taken username, a weak password, or that the organization signs this address in.
    if (error instanceof AppError && (error.statusCode === 400 || error.code === 'SSO_REQUIRED'))
      return form(deps, token, invitation, error.statusCode, username.data, error.message);
    throw error;
  }
  if (byOrganization) {
    return page(
      200,
      <OrganizationAccountReadyPage tenant={await tenantName(deps, accepted.user.tenantId)} username={accepted.user.username} />,
    );
  }
  const { user, opened } = await browserSignIn(
    deps,
    event,
    { tenantId: accepted.user.tenantId },
    { firstFactor: acceptedFactor(accepted) },
  );
  const account = { tenantId: user.tenantId, username: user.username };
  const cookies = [opened.opened.cookie, deviceCookie(account, opened.deviceToken, DEVICE_COOKIE_PATHS.hostedSignIn)];
  const content = (
    <InvitationAcceptedPage tenant={await tenantName(deps, user.tenantId)} username={user.username} passkeysPath={PASSKEYS_PAGE_PATH} />
  );
  return page(200, content, { cookies });
}
