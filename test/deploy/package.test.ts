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
const HASHING = ['login', 'register', 'reauthenticate', 'changePassword', 'passwordReset'];
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
  'AdminListUsers',
  'AdminReadUser',
  'AdminUpdateUser',
  'AdminDeleteUser',
  'AdminResetUserMfa',
  'AdminSignOutUser',
  'PasswordForgot',
  'PasswordReset',
  'EmailSet',
  'EmailVerify',
];
/** Functions that send one-time codes (SNS for SMS, SES for EMAIL). */
const SENDING = ['Login', 'EnableMFA', 'Reauthenticate', 'PasswordForgot', 'PasswordReset'];
/** Functions that send email only: a verification code or a security notification (docs/api.md 8.8, 8.9). */
const EMAILING = ['Register', 'ChangePassword', 'VerifyMFA', 'EmailSet'];
/** What each function may do with the MFA key: seal with a new data key, open what was sealed. */
const MFA_KEY: Record<string, string[]> = {
  Login: ['kms:Decrypt', 'kms:GenerateDataKey'],
  Reauthenticate: ['kms:Decrypt', 'kms:GenerateDataKey'],
  EnableMFA: ['kms:GenerateDataKey'],
  VerifyMFA: ['kms:Decrypt'],
  Register: ['kms:GenerateDataKey'],
  PasswordForgot: ['kms:GenerateDataKey'],
  PasswordReset: ['kms:Decrypt', 'kms:GenerateDataKey'],
  EmailSet: ['kms:GenerateDataKey'],
  EmailVerify: ['kms:Decrypt'],
};
/** Functions that hash client secrets with the pepper. */
const PEPPERED = ['Oauth2Token', 'CreateOAuth2Client', 'Revoke', 'Introspect'];
/** A statement that lets a function query the table's indexes, and do nothing else there. */
const isIndexQuery = (s: Statement) =>
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation !Sub string, not a template
  JSON.stringify(s.Resource) === JSON.stringify({ 'Fn::Sub': '${IdentityTable.Arn}/index/*' }) &&
  JSON.stringify(actions(s)) === JSON.stringify(['dynamodb:Query']);
const WRITES = /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/;

describe('the deployment package', () => {
  beforeAll(() => {
    packageEnv = { ...process.env };
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE']) delete packageEnv[name];
    // A pepper in the deploying shell (as `npm start` uses locally) must not reach the template.
    packageEnv.OAUTH_CLIENT_SECRET_PEPPER = 'a-local-pepper-that-must-not-be-deployed';
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
        const resourcesOf = [statement.Resource].flat();
        for (const resource of resourcesOf) {
          // Publishing an SMS to a phone number has no ARN: only sns:Publish, alone, may name "*".
          if (resource === '*') expect(actions(statement), name).toEqual(['sns:Publish']);
          if (typeof resource === 'object' && resource && 'Fn::Sub' in resource && !isIndexQuery(statement)) {
            expect((resource as { 'Fn::Sub': string })['Fn::Sub'], name).toMatch(
              /^arn:\$\{AWS::Partition\}:(logs:.*:log-group:\/aws\/lambda\/identity-service-prod-[A-Za-z0-9]+:\*(:\*)?|ses:\$\{AWS::Region\}:\$\{AWS::AccountId\}:identity\/[^*]+)$/,
            );
          }
        }
        if (actions(statement).some((a) => a.startsWith('dynamodb:')) && !isIndexQuery(statement)) {
          expect(statement.Resource, name).toEqual({ 'Fn::GetAtt': ['IdentityTable', 'Arn'] });
        }
      }
    }
  });

  it('lets the authorizer read sessions with their users, and keys, and write nothing', () => {
    const authorizer = statementsOf(resources.AuthorizerIamRoleLambdaExecution!);
    const granted = authorizer.flatMap(actions).filter((a) => !a.startsWith('logs:'));
    expect(granted.sort()).toEqual(['dynamodb:BatchGetItem', 'secretsmanager:GetSecretValue']);
    expect(granted.filter((a) => WRITES.test(a))).toEqual([]);
  });

  it('lets only the MFA functions use the MFA key, and only the code senders send SMS and email', () => {
    for (const [name, role] of ofType('AWS::IAM::Role')) {
      const fn = name.replace(/IamRoleLambdaExecution$/, '');
      const statements = statementsOf(role);
      const granted = statements.flatMap(actions);
      const kms = statements.filter((s) => actions(s).some((a) => a.startsWith('kms:')));
      if (MFA_KEY[fn]) {
        expect(kms.flatMap(actions).sort(), fn).toEqual(MFA_KEY[fn]);
        for (const s of kms) expect(s.Resource, fn).toEqual({ 'Fn::GetAtt': ['MfaKey', 'Arn'] });
      } else {
        expect(kms, fn).toEqual([]);
      }
      expect(granted.filter((a) => a.startsWith('sns:') || a.startsWith('ses:')).sort(), fn).toEqual(
        SENDING.includes(fn) ? ['ses:SendEmail', 'sns:Publish'] : EMAILING.includes(fn) ? ['ses:SendEmail'] : [],
      );
    }
    expect(resources.MfaKey!.Properties.EnableKeyRotation).toBe(true);
    expect(resources.MfaKey!.DeletionPolicy).toBe('Retain');
  });

  it('lets the four functions that hash client secrets read the pepper secret, and puts the pepper in no configuration', () => {
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

  it('gives me no table access at all', () => {
    const granted = statementsOf(resources.MeIamRoleLambdaExecution!).flatMap(actions);
    expect(granted.filter((a) => !a.startsWith('logs:'))).toEqual([]);
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
      'POST /auth/password/forgot',
      'POST /auth/password/reset',
      'PUT /auth/email',
      'POST /auth/email/verify',
      'POST /oauth2/clients',
      'POST /oauth2/token',
    ];
    for (const route of stricter) {
      expect(stage.RouteSettings[route]?.ThrottlingRateLimit, route).toBeLessThan(stage.DefaultRouteSettings.ThrottlingRateLimit);
      expect(stage.RouteSettings[route]?.ThrottlingBurstLimit, route).toBeLessThan(stage.DefaultRouteSettings.ThrottlingBurstLimit);
    }
    // Password and one-time-code guessing get the least.
    expect(stage.RouteSettings['POST /auth/mfa/verify'].ThrottlingRateLimit).toBeLessThanOrEqual(
      stage.RouteSettings['POST /oauth2/token'].ThrottlingRateLimit,
    );
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

  it('ships the linux-arm64 Argon2 binding to the functions that hash passwords, and nothing else to the rest', () => {
    for (const [name] of ofType('AWS::Lambda::Function')) {
      const fn = name.replace(/LambdaFunction$/, '');
      const zip = fn.charAt(0).toLowerCase() + fn.slice(1);
      const entries = zipEntries(zip);
      expect(
        entries.filter((e) => e.endsWith('.node')),
        zip,
      ).toEqual(HASHING.includes(zip) ? ['dist/node_modules/@node-rs/argon2-linux-arm64-gnu/argon2.linux-arm64-gnu.node'] : []);
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

  it('packages reproducibly, so per-function deploys can compare zips with Lambda CodeSha256', () => {
    const first = zipHashes();
    packageProd();
    expect(zipHashes()).toEqual(first);
  }, 180_000);
});
