import type { SNSClient } from '@aws-sdk/client-sns';
import { SetSMSAttributesCommand, SNSClient as Sns } from '@aws-sdk/client-sns';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { awsClientSettings } from '../lib/aws';
import { createLogger } from '../lib/log';

const log = createLogger('info');

/**
 * The CloudFormation custom resource `Custom::SmsSpendLimit` (serverless.yml): SNS keeps
 * the monthly SMS spend limit as an account attribute (`MonthlySpendLimit`, set by
 * SetSMSAttributes) for which CloudFormation has no resource type. Created or updated
 * with the stage's `SMS_MONTHLY_SPEND_LIMIT` (whole US dollars), it sets the attribute;
 * deleting the stack leaves it as it is (it belongs to the account, not to this stack).
 * SNS refuses a limit above the account's quota (1 USD until AWS Support raises it):
 * then the deployment fails and says so (docs/api.md 10.4).
 */
export interface SpendLimitDeps {
  sns: Pick<SNSClient, 'send'>;
  /** PUTs the custom resource's answer to CloudFormation's pre-signed URL. */
  answer: (url: string, body: string) => Promise<void>;
}

const PHYSICAL_ID = 'sms-monthly-spend-limit';

/** CloudFormation's answer must be a PUT with an empty content type (pre-signed S3 URL). */
async function putAnswer(url: string, body: string): Promise<void> {
  const response = await fetch(url, { method: 'PUT', headers: { 'content-type': '' }, body });
  if (!response.ok) throw new Error(`CloudFormation answered ${response.status}`);
}

export function makeHandler({ sns, answer }: SpendLimitDeps) {
  return async (event: CloudFormationCustomResourceEvent, context: Pick<Context, 'logStreamName'>): Promise<void> => {
    let failure: string | undefined;
    try {
      if (event.RequestType !== 'Delete') {
        const limit = String(event.ResourceProperties.MonthlySpendLimit ?? '');
        if (!/^[0-9]{1,6}$/.test(limit)) throw new Error(`MonthlySpendLimit must be whole US dollars, got "${limit}"`);
        await sns.send(new SetSMSAttributesCommand({ attributes: { MonthlySpendLimit: limit } }));
        log.info('sms_spend_limit_set', { monthlySpendLimit: limit });
      }
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
      log.error('sms_spend_limit_failed', { error: failure });
    }
    await answer(
      event.ResponseURL,
      JSON.stringify({
        Status: failure ? 'FAILED' : 'SUCCESS',
        Reason: failure ? `${failure.slice(0, 300)} (log stream ${context.logStreamName})` : 'OK',
        PhysicalResourceId: PHYSICAL_ID,
        StackId: event.StackId,
        RequestId: event.RequestId,
        LogicalResourceId: event.LogicalResourceId,
      }),
    );
  };
}

export const handler = makeHandler({ sns: new Sns(awsClientSettings(process.env.AWS_REGION ?? 'us-east-1')), answer: putAnswer });
