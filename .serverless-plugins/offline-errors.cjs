'use strict';
// `npm start` only: a function that fails (throws past its error middleware, cannot be
// loaded, times out) answers as the service's own 500 does (lib/http/respond.ts,
// docs/api.md 2), where API Gateway would answer 500 too. serverless-offline instead
// answers such a failure on a payload 2.0 route with 200 and the Lambda error as the body
// (its message, type and stack trace, with the paths of the files), and its own failures
// (a body that is not a string) with 502 and the same kind of body.
const INTERNAL = JSON.stringify({ success: false, error: 'Internal server error', code: 'INTERNAL' });

class OfflineErrors {
  constructor(serverless) {
    this.hooks = {
      // Before offline-cors.cjs (listed after this plugin), whose hook then sees the 500.
      'before:offline:start:ready': () => {
        const offline = serverless.pluginManager.plugins.find((plugin) => plugin.constructor.name === 'ServerlessOffline');
        offline?.internals().getApiGatewayServer().ext('onPreResponse', answerFailuresAs500);
      },
    };
  }
}

/** The Lambda error serverless-offline answers with: `{ errorMessage, errorType, stackTrace }`, as a string or not. */
function isLambdaError(source) {
  let body = source;
  if (typeof source === 'string') {
    if (!source.startsWith('{"errorMessage":')) return false;
    try {
      body = JSON.parse(source);
    } catch {
      return false;
    }
  }
  return typeof body === 'object' && body !== null && typeof body.errorMessage === 'string' && typeof body.errorType === 'string';
}

/** The hapi response hook: a Lambda error, or a failure of the server itself, becomes the service's 500. */
function answerFailuresAs500(request, h) {
  const response = request.response;
  const failed = response.isBoom ? response.output.statusCode >= 500 : isLambdaError(response.source);
  if (!failed) return h.continue;
  return h.response(INTERNAL).code(500).type('application/json; charset=utf-8').header('cache-control', 'no-store');
}

module.exports = OfflineErrors;
