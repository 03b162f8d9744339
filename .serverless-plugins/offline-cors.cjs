'use strict';
// `npm start` only: makes serverless-offline pass CORS through as API Gateway does when
// the HTTP API has no CORS configuration (docs/decisions/020-public-clients.md): every
// request, preflights included, reaches a function, and the answer carries exactly the
// CORS headers and status the function wrote. Without `provider.httpApi.cors`, offline
// adds its own on top (every origin echoed with credentials allowed, preflights turned
// into 200 with whatever was asked for); one last response hook takes them back.
class OfflineCors {
  constructor(serverless) {
    const passThrough = () => {
      const offline = serverless.pluginManager.plugins.find((plugin) => plugin.constructor.name === 'ServerlessOffline');
      if (!offline) return;
      const server = offline.internals().getApiGatewayServer();
      server.ext('onPostHandler', remember);
      server.ext('onPreResponse', restore);
    };
    this.hooks = { 'before:offline:start:ready': passThrough };
  }
}

const isCors = (name) => name.toLowerCase().startsWith('access-control-');

/** What the function answered: its status and its CORS headers, before offline's own hook changes them. */
function remember(request, h) {
  const response = request.response;
  if (response && !response.isBoom) {
    const cors = Object.entries(response.headers ?? {}).filter(([name]) => isCors(name));
    request.app.functionAnswer = { statusCode: response.statusCode, cors };
  }
  return h.continue;
}

/** The function's status and CORS headers again, and no other CORS header. */
function restore(request, h) {
  const response = request.response.isBoom ? request.response.output : request.response;
  const answer = request.app.functionAnswer ?? { statusCode: response.statusCode, cors: [] };
  for (const name of Object.keys(response.headers)) if (isCors(name)) delete response.headers[name];
  for (const [name, value] of answer.cors) response.headers[name] = value;
  // Offline turns every preflight into a 200; nothing else of the status is its to change here.
  if (request.method === 'options' && !request.response.isBoom) response.statusCode = answer.statusCode;
  return h.continue;
}

module.exports = OfflineCors;
