import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * Packages the service as a deploy would (`serverless package`, offline, without AWS
 * credentials) and reads what a security reviewer reads: the CloudFormation template
 * and the zips.
 */
type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; DependsOn?: string[] };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

let resources: Record<string, Resource>;
let packageEnv: NodeJS.ProcessEnv;
const packageProd = () => execFileSync(process.execPath, ['scripts/package.mjs', '--stage', 'prod'], { stdio: 'pipe', env: packageEnv });
const zipHashes = () =>
  Object.fromEntries(
    readdirSync('.serverless')
      .filter((file) => file.endsWith('.zip'))
      .map((file) => [
        file,
        createHash('sha256')
          .update(readFileSync(`.serverless/${file}`))
          .digest('base64'),
      ]),
  );
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const zipEntries = (name: string) =>
  execFileSync('unzip', ['-Z1', `.serverless/${name}.zip`], { encoding: 'utf8' })
    .trim()
    .split('\n');
const statementsOf = (role: Resource): Statement[] => role.Properties.Policies.flatMap((p: any) => p.PolicyDocument.Statement);
const actions = (s: Statement) => [s.Action].flat();

/** Functions that hash passwords and so need the native Argon2 binding. */
const HASHING = [
  'login',
  'register',
  'reauthenticate',
  'changePassword',
  'passwordReset',
  'hostedSignIn',
  // An invitation accepted with a password (docs/api.md 13.1).
  'acceptInvitation',
  'hostedInvitationAccept',
  // The account page's forms: the password change, a sign-in again on the page (docs/api.md 15.2).
  'accountAction',
];
/** One function per operation of docs/api.md section 1, and the authorizer. */
const FUNCTIONS = [
  'Authorizer',
  'Login',
  'RefreshToken',
  'Register',
  'Logout',
  'Me',
  'Jwks',
  'EnableMFA',
  'VerifyMFA',
  'Reauthenticate',
  'ChangePassword',
  'Oauth2Authorize',
  'Oauth2Token',
  'CreateOAuth2Client',
  'Revoke',
  'Introspect',
  'Metadata',
  'CorsPreflight',
  'AdminListUsers',
  'AdminReadUser',
  'AdminUpdateUser',
  'AdminDeleteUser',
  'AdminResetUserMfa',
  'AdminSignOutUser',
  'ListOAuth2Clients',
  'ReadOAuth2Client',
  'UpdateOAuth2Client',
  'DeleteOAuth2Client',
  'RotateOAuth2ClientSecret',
  'ListMFA',
  'DisableMFA',
  'GenerateRecoveryCodes',
  'ListSessions',
  'RevokeSession',
  'RevokeOtherSessions',
  'ListGrants',
  'RevokeGrant',
  'GetAccount',
  'AdminCreateShop',
  'AdminListShops',
  'AdminListAudit',
  // The custom resource that sets SNS's monthly SMS spend limit (no route).
  'SmsSpendLimit',
  'PasswordForgot',
  'PasswordReset',
  'EmailSet',
  'EmailVerify',
  'UserInfo',
  'OpenIdConfiguration',
  // Browser sign-in: the hosted pages' forms (docs/api.md 11.7).
  'HostedSignIn',
  'HostedSecondFactor',
  'HostedConsent',
  // RP-initiated logout (docs/api.md 11.12).
  'Oauth2Logout',
  // Tenant settings (docs/api.md 9.14).
  'AdminReadTenant',
  'AdminUpdateTenant',
  // Passkeys (docs/api.md 12).
  'PasskeyRegistrationOptions',
  'PasskeyRegistration',
  'ListPasskeys',
  'RemovePasskey',
  'PasskeyAuthenticationOptions',
  'PasskeyAuthentication',
  // Passkeys on the hosted pages (docs/api.md 11.11).
  'HostedPasskeySignIn',
  'HostedPasskeysPage',
  'HostedPasskeyRegister',
  // Staff lifecycle: the user import (docs/api.md 13.2).
  // Invitations (docs/api.md 13.1).
  'AdminCreateInvitation',
  'AdminListInvitations',
  'AdminRevokeInvitation',
  'AdminResendInvitation',
  'AcceptInvitation',
  'HostedInvitationPage',
  'HostedInvitationAccept',
  'AdminImportUsers',
  // The device authorization grant (docs/api.md 16.4).
  'Oauth2DeviceAuthorization',
  'HostedDevicePage',
  'HostedDeviceForm',
  // SCIM 2.0 provisioning and its tokens (docs/api.md 13.3).
  'AdminCreateScimToken',
  'AdminListScimTokens',
  'AdminDeleteScimToken',
  'ScimListUsers',
  'ScimCreateUser',
  'ScimReadUser',
  'ScimReplaceUser',
  'ScimPatchUser',
  'ScimDeleteUser',
  'ScimListGroups',
  'ScimReadGroup',
  'ScimPatchGroup',
  'ScimFixedGroups',
  'ScimServiceProviderConfig',
  'ScimResourceTypes',
  'ScimSchemas',
  // Enterprise sign-in (docs/api.md 14): connections, domains, the way to the IdP and back.
  'AdminCreateConnection',
  'AdminListConnections',
  'AdminReadConnection',
  'AdminUpdateConnection',
  'AdminDeleteConnection',
  'AdminAddDomain',
  'AdminListDomains',
  'AdminVerifyDomain',
  'AdminDeleteDomain',
  'SsoBegin',
  'SsoOidcCallback',
  'SsoSamlAcs',
  'SsoSamlMetadata',
  // The account page and the tenant console (docs/api.md 15.1).
  'AccountPage',
  'AccountAction',
  'AdminConsolePage',
  'AdminConsoleAction',
  // The table's stream publisher (docs/api.md 17.1).
  'PublishEvents',
  // Webhooks and their deliveries (docs/api.md 17.2).
  'AdminCreateWebhook',
  'AdminListWebhooks',
  'AdminReadWebhook',
  'AdminUpdateWebhook',
  'AdminDeleteWebhook',
  'AdminTestWebhook',
  'AdminListWebhookDeliveries',
  'DeliverEvents',
];
/** Functions that check WebAuthn answers, and alone bundle the WebAuthn library (docs/api.md 11.11, 12). */
const WEBAUTHN = [
  'PasskeyRegistration',
  'PasskeyAuthentication',
  'HostedPasskeySignIn',
  'HostedPasskeyRegister',
  // An invitation accepted with a passkey (docs/api.md 13.1).
  'HostedInvitationAccept',
  'AcceptInvitation',
  // A passkey added on the account page (docs/api.md 15.2); its page function carries the
  // same sections, actions included (docs/decisions/018-console-frame.md).
  'AccountAction',
  'AccountPage',
];
/** Functions that record audit events (lib/audit/record.ts), and so put them. */
const AUDITING = [
  'Login',
  'RefreshToken',
  'Register',
  'Reauthenticate',
  'ChangePassword',
  'EnableMFA',
  'VerifyMFA',
  'DisableMFA',
  'GenerateRecoveryCodes',
  'CreateOAuth2Client',
  'UpdateOAuth2Client',
  'DeleteOAuth2Client',
  'RotateOAuth2ClientSecret',
  'AdminUpdateUser',
  'AdminDeleteUser',
  'AdminResetUserMfa',
  'AdminSignOutUser',
  'AdminCreateShop',
  'RevokeSession',
  'RevokeOtherSessions',
  'RevokeGrant',
  'PasswordForgot',
  'PasswordReset',
  'EmailSet',
  'EmailVerify',
  // RP-initiated logout (docs/api.md 11.12).
  'Oauth2Logout',
  'AdminUpdateTenant',
  // Passkeys (docs/api.md 12).
  'PasskeyRegistration',
  'RemovePasskey',
  'PasskeyAuthentication',
  // Invitations and the user import (docs/api.md 13.1, 13.2).
  'AdminCreateInvitation',
  'AdminRevokeInvitation',
  'AdminResendInvitation',
  'AcceptInvitation',
  'HostedInvitationAccept',
  'AdminImportUsers',
  // SCIM tokens and the SCIM writes, with the token as actor (docs/api.md 13.3).
  'AdminCreateScimToken',
  'AdminDeleteScimToken',
  'ScimCreateUser',
  'ScimReplaceUser',
  'ScimPatchUser',
  'ScimDeleteUser',
  'ScimPatchGroup',
  // Connections and domains (docs/api.md 14.1, 14.2); a federated sign-in or its refusal (14.3-14.5).
  'AdminCreateConnection',
  'AdminUpdateConnection',
  'AdminDeleteConnection',
  'AdminAddDomain',
  'AdminVerifyDomain',
  'AdminDeleteDomain',
  'SsoBegin',
  'SsoOidcCallback',
  'SsoSamlAcs',
  // The forms of the account page and the tenant console, audited as their JSON twins (docs/api.md 15.1).
  'AccountAction',
  'AdminConsoleAction',
  // A device allowed or denied, wrong codes past the limit (docs/api.md 16.4).
  'HostedDeviceForm',
  // Webhooks (docs/api.md 17.2).
  'AdminCreateWebhook',
  'AdminUpdateWebhook',
  'AdminDeleteWebhook',
];
/** Functions that send one-time codes (SNS for SMS, SES for EMAIL). */
const SENDING = [
  'Login',
  'EnableMFA',
  'Reauthenticate',
  'PasswordForgot',
  'PasswordReset',
  'HostedSignIn',
  'HostedSecondFactor',
  // The account page: SMS and EMAIL enrolment, a second factor asked again (docs/api.md 15.2).
  'AccountAction',
];
/** Functions that send email only: a verification code or a security notification (docs/api.md 8.8, 8.9). */
const EMAILING = [
  'Register',
  'ChangePassword',
  'VerifyMFA',
  'EmailSet',
  'DisableMFA',
  'GenerateRecoveryCodes',
  // A passkey added or removed (docs/api.md 8.9).
  // An invitation (docs/api.md 13.1).
  'AdminCreateInvitation',
  'AdminResendInvitation',
  'PasskeyRegistration',
  'RemovePasskey',
  'HostedPasskeyRegister',
  // The tenant console's invitations (docs/api.md 15.3.2).
  'AdminConsoleAction',
];
/** What each function may do with the MFA key: seal with a new data key, open what was sealed. */
const MFA_KEY: Record<string, string[]> = {
  Login: ['kms:Decrypt', 'kms:GenerateDataKey'],
  Reauthenticate: ['kms:Decrypt', 'kms:GenerateDataKey'],
  EnableMFA: ['kms:GenerateDataKey'],
  VerifyMFA: ['kms:Decrypt'],
  GenerateRecoveryCodes: ['kms:GenerateDataKey'],
  Register: ['kms:GenerateDataKey'],
  PasswordForgot: ['kms:GenerateDataKey'],
  PasswordReset: ['kms:Decrypt', 'kms:GenerateDataKey'],
  EmailSet: ['kms:GenerateDataKey'],
  EmailVerify: ['kms:Decrypt'],
  HostedSignIn: ['kms:Decrypt', 'kms:GenerateDataKey'],
  HostedSecondFactor: ['kms:Decrypt', 'kms:GenerateDataKey'],
  // The OIDC connection's client secret is opened, never sealed, at the callback (docs/api.md 14.4),
  // and sealed, never opened, by the ADMIN's routes that set it (14.1).
  SsoOidcCallback: ['kms:Decrypt'],
  AdminCreateConnection: ['kms:GenerateDataKey'],
  AdminUpdateConnection: ['kms:GenerateDataKey'],
  // The account page: enrolments seal, a code checked again opens (docs/api.md 15.2).
  AccountAction: ['kms:Decrypt', 'kms:GenerateDataKey'],
  // The tenant console seals an OIDC connection's client secret as 14.1's routes do (docs/api.md 15.3.7).
  AdminConsoleAction: ['kms:GenerateDataKey'],
  // A webhook's secret is sealed at its creation and opened to sign each delivery (docs/api.md 17.2).
  AdminCreateWebhook: ['kms:GenerateDataKey'],
  AdminTestWebhook: ['kms:Decrypt'],
  DeliverEvents: ['kms:Decrypt'],
};
/** Functions that hash client secrets with the pepper, or MAC device tokens under a subkey of it (login, register). */
const PEPPERED = [
  'Oauth2Token',
  'CreateOAuth2Client',
  'Revoke',
  'Introspect',
  'RotateOAuth2ClientSecret',
  'Login',
  'Register',
  'HostedSignIn',
  // A sign-in completed by its second factor hands out a device token (docs/api.md 10.1).
  'HostedSecondFactor',
  // So does a sign-in with a passkey on the hosted pages.
  'HostedPasskeySignIn',
  // A device token makes a forgot-password caller a known device (docs/api.md 8.7).
  'PasswordForgot',
  // The first sign-in of an invited account hands out a device token (docs/api.md 13.1).
  'AcceptInvitation',
  'HostedInvitationAccept',
  // So does a federated sign-in (docs/api.md 14.4, 14.5).
  'SsoOidcCallback',
  'SsoSamlAcs',
  // The device authorization endpoint authenticates its client (docs/api.md 16.4).
  'Oauth2DeviceAuthorization',
  // The tenant console registers clients and rotates their secrets (docs/api.md 15.3.6).
  'AdminConsoleAction',
];
/** A statement that lets a function query the table's indexes, and do nothing else there. */
const isIndexQuery = (s: Statement) =>
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation !Sub string, not a template
  JSON.stringify(s.Resource) === JSON.stringify({ 'Fn::Sub': '${IdentityTable.Arn}/index/*' }) &&
  JSON.stringify(actions(s)) === JSON.stringify(['dynamodb:Query']);
const WRITES = /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/;
/** Functions that sign tokens, and so alone may read the private signing keys. */
const SIGNING = [
  'Login',
  'RefreshToken',
  'Register',
  'Reauthenticate',
  'Oauth2Token',
  'PasskeyAuthentication',
  'AcceptInvitation',
  // Logout tokens of back-channel logout (docs/api.md 17.3).
  'DeliverEvents',
];
/** Functions that only verify tokens: the public keys document is all they may read. */
const VERIFYING = ['Authorizer', 'Jwks', 'Revoke', 'Introspect', 'UserInfo', 'Oauth2Logout'];
/** The Deny that keeps the SMS senders' `sns:Publish` on "*" off every topic and endpoint. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation !Sub string, not a template
const SMS_ONLY = { Effect: 'Deny', Action: ['sns:Publish'], Resource: { 'Fn::Sub': 'arn:${AWS::Partition}:sns:*:*:*' } };
/** Whether an IAM resource pattern matches an ARN (`*` any run of characters, `?` one). */
const matchesArn = (pattern: string, arn: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  ).test(arn);

describe('the deployment package', () => {
  beforeAll(() => {
    packageEnv = { ...process.env };
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE']) delete packageEnv[name];
    // A pepper in the deploying shell (as `npm start` uses locally) must not reach the template.
    packageEnv.OAUTH_CLIENT_SECRET_PEPPER = 'a-local-pepper-that-must-not-be-deployed';
    // Two front ends, as a deploy with CORS_ALLOWED_ORIGINS="a, b" has them.
    packageEnv.CORS_ALLOWED_ORIGINS = 'https://app.example.com, https://admin.example.com';
    packageProd();
    resources = JSON.parse(readFileSync('.serverless/cloudformation-template-update-stack.json', 'utf8')).Resources;
  }, 180_000);

  it('runs every function on nodejs22.x, arm64, with a role of its own', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions.map(([name]) => name.replace(/LambdaFunction$/, '')).sort()).toEqual(FUNCTIONS.sort());
    const roles = new Set<string>();
    for (const [name, fn] of functions) {
      expect(fn.Properties.Runtime, name).toBe('nodejs22.x');
      expect(fn.Properties.Architectures, name).toEqual(['arm64']);
      const role = fn.Properties.Role['Fn::GetAtt'][0] as string;
      expect(role, name).toBe(name.replace(/LambdaFunction$/, 'IamRoleLambdaExecution'));
      roles.add(role);
    }
    expect(roles.size).toBe(functions.length);
  });

  it('grants no wildcard actions and no wildcard resources beyond the function own log group and SMS', () => {
    for (const [name, role] of ofType('AWS::IAM::Role')) {
      for (const statement of statementsOf(role)) {
        for (const action of actions(statement)) expect(action, name).not.toMatch(/\*/);
        // The one Deny takes away; it is checked below, and grants nothing.
        if (statement.Effect === 'Deny') {
          expect(statement, name).toEqual(SMS_ONLY);
          continue;
        }
        expect(statement.Effect, name).toBe('Allow');
        const resourcesOf = [statement.Resource].flat();
        for (const resource of resourcesOf) {
          // Publishing an SMS to a phone number has no ARN: only sns:Publish, alone, may name "*";
          // and the account's SMS attributes, set by the spend-limit resource alone.
          if (resource === '*')
            expect(actions(statement), name).toEqual(
              name === 'SmsSpendLimitIamRoleLambdaExecution' ? ['sns:SetSMSAttributes'] : ['sns:Publish'],
            );
          if (typeof resource === 'object' && resource && 'Fn::Sub' in resource && !isIndexQuery(statement)) {
            expect((resource as { 'Fn::Sub': string })['Fn::Sub'], name).toMatch(
              /^arn:\$\{AWS::Partition\}:(logs:.*:log-group:\/aws\/lambda\/identity-service-prod-[A-Za-z0-9]+:\*(:\*)?|ses:\$\{AWS::Region\}:\$\{AWS::AccountId\}:identity\/[^*]+)$/,
            );
          }
        }
        // The publisher reads the table's stream (docs/api.md 17.1): its ARN, not the table's.
        const onStream = resourcesOf.every(
          (resource) => JSON.stringify(resource) === JSON.stringify({ 'Fn::GetAtt': ['IdentityTable', 'StreamArn'] }),
        );
        if (actions(statement).some((a) => a.startsWith('dynamodb:')) && !isIndexQuery(statement) && !onStream) {
          expect(statement.Resource, name).toEqual({ 'Fn::GetAtt': ['IdentityTable', 'Arn'] });
        }
      }
    }
  });

  it('lets the authorizer read sessions with their users (BatchGetItem, and GetItem for the isolated read), and keys, and write nothing', () => {
    const authorizer = statementsOf(resources.AuthorizerIamRoleLambdaExecution!);
    const granted = authorizer.flatMap(actions).filter((a) => !a.startsWith('logs:'));
    expect(granted.sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'secretsmanager:GetSecretValue']);
    expect(granted.filter((a) => WRITES.test(a))).toEqual([]);
  });

  it('lets only the MFA functions use the MFA key, and only the code senders send SMS and email', () => {
    for (const [name, role] of ofType('AWS::IAM::Role')) {
      const fn = name.replace(/IamRoleLambdaExecution$/, '');
      const statements = statementsOf(role);
      const granted = statements.filter((s) => s.Effect === 'Allow').flatMap(actions);
      const kms = statements.filter((s) => actions(s).some((a) => a.startsWith('kms:')));
      if (MFA_KEY[fn]) {
        expect(kms.flatMap(actions).sort(), fn).toEqual(MFA_KEY[fn]);
        for (const s of kms) expect(s.Resource, fn).toEqual({ 'Fn::GetAtt': ['MfaKey', 'Arn'] });
      } else {
        expect(kms, fn).toEqual([]);
      }
      expect(granted.filter((a) => a.startsWith('sns:') || a.startsWith('ses:')).sort(), fn).toEqual(
        SENDING.includes(fn)
          ? ['ses:SendEmail', 'sns:Publish']
          : EMAILING.includes(fn)
            ? ['ses:SendEmail']
            : fn === 'SmsSpendLimit'
              ? ['sns:SetSMSAttributes']
              : [],
      );
    }
    expect(resources.MfaKey!.Properties.EnableKeyRotation).toBe(true);
    expect(resources.MfaKey!.DeletionPolicy).toBe('Retain');
  });

  it('lets the functions that hash client secrets or MAC device tokens read the pepper secret, and puts the pepper in no configuration', () => {
    for (const [name, fn] of ofType('AWS::Lambda::Function')) {
      const short = name.replace(/LambdaFunction$/, '');
      const variables = fn.Properties.Environment?.Variables ?? {};
      expect(variables.OAUTH_CLIENT_SECRET_PEPPER, name).toBeUndefined();
      const readsPepper = statementsOf(resources[`${short}IamRoleLambdaExecution`]!).some(
        (statement) => JSON.stringify(statement.Resource) === JSON.stringify({ Ref: 'OAuthClientSecretPepper' }),
      );
      if (PEPPERED.includes(short)) {
        expect(variables.OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID, name).toBe('identity-service/prod/oauth-client-secret-pepper');
        expect(readsPepper, name).toBe(true);
      } else {
        expect(variables.OAUTH_CLIENT_SECRET_PEPPER_SECRET_ID, name).toBeUndefined();
        expect(readsPepper, name).toBe(false);
      }
    }
    expect(JSON.stringify(resources)).not.toContain('a-local-pepper-that-must-not-be-deployed');
    expect(resources.OAuthClientSecretPepper!.Properties.GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(32);
    expect(resources.OAuthClientSecretPepper!.DeletionPolicy).toBe('Retain');
  });

  it('leaves CORS to the functions: no API-wide configuration, every preflight to corsPreflight (docs/decisions/020-public-clients.md)', () => {
    // API Gateway's own CORS would answer every preflight and replace the functions' headers with one list for every route.
    expect(resources.HttpApi!.Properties.CorsConfiguration).toBeUndefined();
    const preflight = ofType('AWS::ApiGatewayV2::Route').filter(([, route]) => String(route.Properties.RouteKey).startsWith('OPTIONS '));
    expect(preflight.map(([, route]) => route.Properties.RouteKey)).toEqual(['OPTIONS /{proxy+}']);
    expect(preflight[0]?.[1].Properties.AuthorizationType ?? 'NONE').toBe('NONE');
    // The functions read the front ends' origins from their configuration (lib/config.ts splits them).
    for (const [name, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties.Environment.Variables.CORS_ALLOWED_ORIGINS, name).toBe('https://app.example.com, https://admin.example.com');
    }
  });

  it('lets only the signing functions read the private signing keys; the verifiers read the public keys only', () => {
    const readersOf = (secret: string) =>
      ofType('AWS::IAM::Role')
        .filter(([, role]) =>
          statementsOf(role).some(
            (s) =>
              s.Effect === 'Allow' &&
              actions(s).includes('secretsmanager:GetSecretValue') &&
              JSON.stringify(s.Resource) === JSON.stringify({ Ref: secret }),
          ),
        )
        .map(([name]) => name.replace(/IamRoleLambdaExecution$/, ''))
        .sort();
    expect(readersOf('SigningKeysSecret')).toEqual([...SIGNING].sort());
    expect(readersOf('SigningPublicKeysSecret')).toEqual([...VERIFYING].sort());
    // No verifying role can read the private secret by any statement: nothing names it, and
    // no statement of theirs grants secretsmanager on a pattern or "*".
    for (const fn of VERIFYING) {
      const statements = statementsOf(resources[`${fn}IamRoleLambdaExecution`]!);
      expect(JSON.stringify(statements), fn).not.toContain('"SigningKeysSecret"');
      const secretReads = statements.filter((s) => actions(s).some((a) => a.startsWith('secretsmanager:')));
      for (const s of secretReads) {
        expect(s.Resource, fn).toEqual(
          expect.objectContaining({ Ref: expect.stringMatching(/^(SigningPublicKeysSecret|OAuthClientSecretPepper)$/) }),
        );
      }
    }
    expect(resources.SigningPublicKeysSecret!.Properties).toMatchObject({
      Name: 'identity-service/prod/signing-keys-public',
      SecretString: '{"keys":[]}',
    });
    const variables = resources.AuthorizerLambdaFunction!.Properties.Environment.Variables;
    expect(variables.SIGNING_PUBLIC_KEYS_SECRET_ID).toBe('identity-service/prod/signing-keys-public');
  });

  it('lets the code senders publish SMS to phone numbers only: an explicit Deny covers every topic, the alarm topic too', () => {
    for (const [name, role] of ofType('AWS::IAM::Role')) {
      const fn = name.replace(/IamRoleLambdaExecution$/, '');
      const sns = statementsOf(role).filter((s) => actions(s).some((a) => a.startsWith('sns:')));
      const expected = SENDING.includes(fn)
        ? [{ Effect: 'Allow', Action: ['sns:Publish'], Resource: '*' }, SMS_ONLY]
        : // The spend-limit resource sets an account attribute; it cannot publish at all.
          fn === 'SmsSpendLimit'
          ? [{ Effect: 'Allow', Action: ['sns:SetSMSAttributes'], Resource: '*' }]
          : [];
      expect(sns, fn).toEqual(expected);
    }
    const pattern = SMS_ONLY.Resource['Fn::Sub'].replace(/^arn:\$\{AWS::Partition\}:/, 'arn:aws:');
    const alarmTopic = `arn:aws:sns:eu-west-1:123456789012:${resources.AlarmTopic!.Properties.TopicName}`;
    expect(alarmTopic).toBe('arn:aws:sns:eu-west-1:123456789012:identity-service-prod-alarms');
    for (const arn of [
      alarmTopic,
      'arn:aws:sns:us-east-1:210987654321:any-topic',
      'arn:aws:sns:eu-west-1:123456789012:endpoint/APNS/app/1a2b',
    ]) {
      expect(matchesArn(pattern, arn), arn).toBe(true);
    }
    // A phone number is not an ARN: the Deny does not reach an SMS.
    expect(matchesArn(pattern, '+15555550100')).toBe(false);
  });

  it('lets the audit trail’s reader query and nothing else: no route changes or deletes an event (docs/api.md 9.8)', () => {
    const granted = statementsOf(resources.AdminListAuditIamRoleLambdaExecution!).flatMap(actions);
    expect(granted.filter((a) => !a.startsWith('logs:'))).toEqual(['dynamodb:Query', 'dynamodb:Query']);
  });

  it('lets every function that records an audit event put it (docs/api.md 9.8)', () => {
    for (const fn of AUDITING) {
      const granted = statementsOf(resources[`${fn}IamRoleLambdaExecution`]!).flatMap(actions);
      expect(granted, fn).toContain('dynamodb:PutItem');
    }
  });

  it('gives me no table access at all', () => {
    const granted = statementsOf(resources.MeIamRoleLambdaExecution!).flatMap(actions);
    expect(granted.filter((a) => !a.startsWith('logs:'))).toEqual([]);
  });

  it("sets SNS's monthly SMS spend limit of the stage through its custom resource (docs/api.md 10.4)", () => {
    expect(resources.SmsSpendLimit).toEqual({
      Type: 'Custom::SmsSpendLimit',
      Properties: { ServiceToken: { 'Fn::GetAtt': ['SmsSpendLimitLambdaFunction', 'Arn'] }, MonthlySpendLimit: 100 },
    });
    const granted = statementsOf(resources.SmsSpendLimitIamRoleLambdaExecution!).flatMap(actions);
    expect(granted.filter((a) => !a.startsWith('logs:'))).toEqual(['sns:SetSMSAttributes']);
  });

  it('keeps the table safe: on demand, PITR, encryption, TTL, deletion protection on prod', () => {
    const table = resources.IdentityTable!;
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(table.DeletionPolicy).toBe('Retain');
  });

  it('throttles every route, the credential routes harder, and logs access', () => {
    const stage = resources.HttpApiStage!.Properties;
    expect(stage.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: expect.any(Number), ThrottlingBurstLimit: expect.any(Number) });
    const stricter = [
      'POST /auth/login',
      'POST /auth/register',
      'POST /auth/mfa/enable',
      'POST /auth/mfa/verify',
      'POST /auth/reauthenticate',
      'POST /auth/password/change',
      'POST /auth/mfa/disable',
      'POST /auth/mfa/recovery-codes',
      'POST /auth/password/forgot',
      'POST /auth/password/reset',
      'PUT /auth/email',
      'POST /auth/email/verify',
      'POST /oauth2/clients',
      'POST /oauth2/token',
      'PATCH /oauth2/clients/{clientId}',
      'DELETE /oauth2/clients/{clientId}',
      'POST /oauth2/clients/{clientId}/secrets',
      'POST /admin/shops',
      'POST /oauth2/hosted/sign-in',
      'POST /oauth2/hosted/second-factor',
    ];
    for (const route of stricter) {
      expect(stage.RouteSettings[route]?.ThrottlingRateLimit, route).toBeLessThan(stage.DefaultRouteSettings.ThrottlingRateLimit);
      expect(stage.RouteSettings[route]?.ThrottlingBurstLimit, route).toBeLessThan(stage.DefaultRouteSettings.ThrottlingBurstLimit);
    }
    // Password and one-time-code guessing get the least.
    expect(stage.RouteSettings['POST /auth/mfa/verify'].ThrottlingRateLimit).toBeLessThanOrEqual(
      stage.RouteSettings['POST /oauth2/token'].ThrottlingRateLimit,
    );
    // The sign-in doors limit failures per account, device and source inside (docs/api.md 10):
    // their route limits, shared by every caller, are login's, far above what one host needs
    // to shut every tenant out.
    for (const route of [
      'POST /auth/login',
      'POST /oauth2/hosted/sign-in',
      'POST /oauth2/hosted/second-factor',
      'POST /auth/passkeys/authentication',
      'POST /auth/passkeys/authentication/options',
    ]) {
      expect(stage.RouteSettings[route], route).toEqual({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
    }
    expect(stage.AccessLogSettings.DestinationArn).toBeDefined();
  });

  it('alarms on the 5xx rate, authorizer errors and refresh-token reuse, and keeps logs 30 days', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([name]) => name);
    expect(alarms).toEqual(
      expect.arrayContaining([
        'ServerErrorRateAlarm',
        'AuthorizerErrorsAlarm',
        'RefreshTokenReuseAlarm',
        'OAuthTokenReuseAlarm',
        'MfaLockoutAlarm',
        'SigningKeysAlarm',
        'AuditEventsLostAlarm',
      ]),
    );
    // A refused signing-keys document (or keys that expired unrefreshed) alarms at the first event.
    const refused = ofType('AWS::Logs::MetricFilter').filter(([, filter]) =>
      filter.Properties.FilterPattern.includes('signing_keys_rejected'),
    );
    expect(refused.map(([, filter]) => filter.Properties.LogGroupName).sort()).toEqual(
      ['authorizer', 'jwks', 'login'].map((fn) => `/aws/lambda/identity-service-prod-${fn}`),
    );
    expect(resources.SigningKeysAlarm!.Properties).toMatchObject({
      MetricName: 'SigningKeysRefused',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    for (const [name, group] of ofType('AWS::Logs::LogGroup')) expect(group.Properties.RetentionInDays, name).toBe(30);
  });

  it('ships the linux-arm64 Argon2 binding and bcryptjs (imported hashes) to the functions that hash passwords, and nothing else to the rest', () => {
    for (const [name] of ofType('AWS::Lambda::Function')) {
      const fn = name.replace(/LambdaFunction$/, '');
      const zip = fn.charAt(0).toLowerCase() + fn.slice(1);
      const entries = zipEntries(zip);
      expect(
        entries.filter((e) => e.endsWith('.node')),
        zip,
      ).toEqual(HASHING.includes(zip) ? ['dist/node_modules/@node-rs/argon2-linux-arm64-gnu/argon2.linux-arm64-gnu.node'] : []);
      expect(entries.filter((e) => e.includes('/bcryptjs/')).sort(), zip).toEqual(
        HASHING.includes(zip)
          ? [
              'dist/node_modules/bcryptjs/package.json',
              'dist/node_modules/bcryptjs/umd/index.js',
              'dist/node_modules/bcryptjs/umd/package.json',
            ]
          : [],
      );
      expect(
        entries.filter((e) => !e.startsWith('dist/')),
        zip,
      ).toEqual([]);
      expect(
        entries.some((e) => e.includes('.data') || e.endsWith('.ts')),
        zip,
      ).toBe(false);
    }
  });

  it('bundles the WebAuthn library into the passkey ceremonies only (docs/decisions/002-oslojs-webauthn.md)', () => {
    const withWebAuthn = ofType('AWS::Lambda::Function')
      .map(([name]) => name.replace(/LambdaFunction$/, ''))
      .filter((fn) => {
        const zip = fn.charAt(0).toLowerCase() + fn.slice(1);
        const bundle = execFileSync('unzip', ['-p', `.serverless/${zip}.zip`, `dist/functions/*.cjs`], { encoding: 'utf8' });
        // A message of @oslojs/webauthn's client-data parser, which every ceremony runs.
        return bundle.includes('Invalid client data JSON');
      });
    expect(withWebAuthn.sort()).toEqual(WEBAUTHN.sort());
  });

  it('ships the common-password list beside the bundles that set passwords (lib/users/common-passwords.ts)', () => {
    const shipping = ofType('AWS::Lambda::Function')
      .map(([name]) => name.replace(/LambdaFunction$/, ''))
      .map((fn) => fn.charAt(0).toLowerCase() + fn.slice(1))
      .filter((zip) => zipEntries(zip).includes('dist/functions/common-passwords.txt'));
    expect(shipping.sort()).toEqual(
      ['acceptInvitation', 'accountAction', 'changePassword', 'hostedInvitationAccept', 'passwordReset', 'register'].sort(),
    );
    for (const zip of shipping) {
      const bundle = execFileSync('unzip', ['-p', `.serverless/${zip}.zip`, 'dist/functions/*.cjs'], { encoding: 'utf8' });
      expect(bundle.includes('common-passwords.txt'), zip).toBe(true);
    }
  });

  it('packages reproducibly, so per-function deploys can compare zips with Lambda CodeSha256', () => {
    const first = zipHashes();
    packageProd();
    expect(zipHashes()).toEqual(first);
  }, 180_000);
});
