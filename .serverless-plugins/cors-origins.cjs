'use strict';
// `${file(./.serverless-plugins/cors-origins.cjs)}` in serverless.yml: the HTTP API's allowed origins
// as a list, one entry per origin of CORS_ALLOWED_ORIGINS (comma-separated, as
// lib/config.ts reads it). The framework has no variable that splits a string, and a
// single entry holding "a,b" would match neither origin in API Gateway. It lives here
// because a change to it changes the template (scripts/infrastructure-changed.mjs).
module.exports = async ({ resolveVariable }) =>
  String(await resolveVariable('self:custom.corsAllowedOrigins'))
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
