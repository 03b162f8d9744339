'use strict';
// `npm start` only: makes serverless-offline answer CORS as API Gateway does with
// `provider.httpApi.cors`. Offline adds its own CORS headers on top of the function's
// (every origin echoed, Access-Control-Expose-Headers and Vary twice) and sends no
// `Vary: Origin` on preflights. API Gateway instead answers preflights itself and replaces
// the function's CORS headers with its own, for the configured origins only
// (docs/api.md 2). So, while offline runs, the routes get no CORS configuration of
// offline's, and one last response hook writes what API Gateway would.
class OfflineCors {
  constructor(serverless) {
    let cors;
    const withoutOfflineCors = () => {
      const httpApi = serverless.service.provider.httpApi ?? {};
      cors = httpApi.cors;
      delete httpApi.cors;
    };
    const answerAsApiGateway = () => {
      const offline = serverless.pluginManager.plugins.find((plugin) => plugin.constructor.name === 'ServerlessOffline');
      if (!cors || !offline) return;
      offline.internals().getApiGatewayServer().ext('onPreResponse', corsLikeApiGateway(cors));
    };
    this.hooks = {
      'before:offline:start:init': withoutOfflineCors,
      'before:offline:start:ready': answerAsApiGateway,
    };
  }
}

/** The hapi response hook: API Gateway's CORS answer for `cors` (serverless.yml's httpApi.cors). */
function corsLikeApiGateway(cors) {
  const join = (list) => [list ?? []].flat().join(',');
  return (request, h) => {
    const origin = request.headers.origin;
    if (!origin) return h.continue;
    const allowed = cors.allowedOrigins.includes(origin);
    if (request.method === 'options') {
      const preflight = h.response().code(204).header('vary', 'Origin');
      if (allowed) {
        preflight.header('access-control-allow-origin', origin);
        preflight.header('access-control-allow-methods', join(cors.allowedMethods));
        preflight.header('access-control-allow-headers', join(cors.allowedHeaders));
        if (cors.maxAge) preflight.header('access-control-max-age', String(cors.maxAge));
      }
      return preflight.takeover();
    }
    const response = request.response.isBoom ? request.response.output : request.response;
    const vary = [];
    for (const [name, value] of Object.entries(response.headers)) {
      if (name.toLowerCase() === 'vary') vary.push(...String(value).split(','));
      if (name.toLowerCase() === 'vary' || name.toLowerCase().startsWith('access-control-')) delete response.headers[name];
    }
    const others = vary.map((field) => field.trim()).filter((field) => field && field.toLowerCase() !== 'origin');
    response.headers.vary = ['Origin', ...new Set(others)].join(',');
    if (allowed) {
      response.headers['access-control-allow-origin'] = origin;
      if (cors.exposedResponseHeaders) response.headers['access-control-expose-headers'] = join(cors.exposedResponseHeaders);
    }
    return h.continue;
  };
}

module.exports = OfflineCors;
