import type { Context } from 'aws-lambda';

/** A Lambda context object with what our functions and middy read. */
export function lambdaContext(functionName: string, timeoutMs = 10_000): Context {
  const deadline = Date.now() + timeoutMs;
  // Unique enough for a benchmark, and no module of its own: bench/cold-start.ts compares
  // a process with a bundle to one without, and loads this in both.
  const awsRequestId = `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
