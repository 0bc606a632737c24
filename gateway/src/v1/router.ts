// The developer API under /api/v1 (docs/api.md, docs/adr/0033-developer-api.md). Each route of
// routes.ts's table becomes an operation row (http/operations.ts, who: its key's scope) and is
// registered by the same registration as the dashboard's, whose apiKey face takes these steps before its handler: the key (keys.ts,
// 401 with WWW-Authenticate; a client address that failed too many key checks is 429 before auth is
// asked, rate-limit.ts), the key's rate limit (rate-limit.ts, 429), then the body read (413, 415,
// 400), so every answer past the key check carries the rate limit headers; the route's scope (403),
// the chatbot the path names among the key's (404 for another), the role header of the route's
// permission on every service call (keyRole), and the body and query validated by the route's
// schemas (400). A browser's preflight is refused (403 cors_not_allowed): keys belong on servers.
// Errors are `{ error: { code, message } }`; every answer carries X-Request-Id (app.ts).
import { Router, type ErrorRequestHandler } from 'express';
import { bearerToken } from '../access/bearer.ts';
import { bodyParserError, mapError, type GraphQLErrorCode } from '../http/errors.ts';
import { cleanPath, noStore } from '../http/api.ts';
import { JSON_BODY_ONLY, keyRole, registerOperations, type ApiKeyFace, type Method, type Operation } from '../http/operations.ts';
import { mcpOtherMethods, mcpRoutes } from '../features/mcp/mcp-route.ts';
import { chatRoutes } from './chat.ts';
import type { ApiV1Options, On, V1Call } from './call.ts';
import { bearerChallenge } from '../access/api-keys.ts';
import { openApiDocument } from './openapi.ts';
import { keyCheckLimiter, keyRateLimiter } from './rate-limit.ts';
import { resourceRoutes } from './resources.ts';
import { API_V1_PREFIX, API_V1_ROUTES, type ApiRoute } from './routes.ts';

export { JSON_BODY_ONLY };
export const CORS_NOT_ALLOWED =
  'The developer API does not accept calls from browsers: API keys belong on your server. Call it from your backend, and let your web page talk to your backend (or use the chat widget, which needs no key).';

export function apiV1Router(opts: ApiV1Options): Router {
  const router = Router();
  const { keys } = opts;
  const limiter = keyRateLimiter(opts.redis, { prefix: opts.prefix, limit: opts.rateLimit, windowMs: opts.rateWindowMs });
  const checks = keyCheckLimiter(opts.redis, {
    prefix: opts.prefix,
    limit: opts.keyFailuresPerIp,
    windowMs: opts.keyFailureWindowMs,
    logger: opts.logger,
  });
  const document = openApiDocument(opts.publicUrl);
  router.use(noStore, cleanPath);
  // A browser asks before it sends a key (the Authorization header is never "simple"): it is told no,
  // with no Access-Control-Allow-* header, so the call it wanted is never made.
  router.use((req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    res.status(403).json({ error: { code: 'cors_not_allowed', message: CORS_NOT_ALLOWED } });
  });
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });

  const face: ApiKeyFace = {
    face: 'apiKey',
    keys,
    held: opts.held,
    bodyLimit: opts.bodyLimit,
    guard: (ip, res) => checks.guard(ip, res),
    admit: (apiKeyId, res) => limiter.admit(apiKeyId, res),
  };
  const on: On = (key, handler) => {
    const [method, path] = key.split(' ') as [Method, string];
    const spec: ApiRoute = API_V1_ROUTES[key];
    const row: Operation = {
      method,
      path,
      who: { apiKey: spec.scope, chatbot: spec.chatbot },
      permission: spec.permission,
      summary: spec.summary,
      status: spec.status,
      response: spec.response,
      streams: spec.streams,
      body: spec.body,
      multipart: spec.multipart,
      query: spec.query,
      handle: async (call) => {
        await handler(call as unknown as V1Call<typeof key>);
        return undefined;
      },
    };
    registerOperations(router, [row], face, API_V1_PREFIX);
  };
  resourceRoutes(on, opts);
  chatRoutes(on, opts);
  router.use('/mcp', mcpOtherMethods);
  mcpRoutes(on, opts);

  router.use((_req, res) => {
    res.status(404).json({ error: { code: 'not_found', message: 'Not found' } });
  });
  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    const parsed = bodyParserError(err);
    const { status, code, message } = parsed
      ? { status: parsed.status, code: 'BAD_USER_INPUT' as const, message: parsed.body.message }
      : mapError(err, opts.logger);
    if (res.headersSent) return void res.end();
    if (status === 401) res.setHeader('WWW-Authenticate', bearerChallenge(bearerToken(req)));
    res.status(status).json({ error: { code: BODY_CODES[status] ?? CODES[code], message } });
  };
  router.use(onError);
  return router;
}

export { keyRole };

/** The API's error codes, from the gateway's (errors.ts): stable, documented in docs/api.md. */
const CODES: Record<GraphQLErrorCode, string> = {
  BAD_USER_INPUT: 'invalid_request',
  UNAUTHENTICATED: 'unauthenticated',
  FORBIDDEN: 'forbidden',
  // A member's sign-in refusal; a key acts without one, so the API never answers it.
  TWO_FACTOR_REQUIRED: 'forbidden',
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  LIMIT_REACHED: 'limit_reached',
  TOO_MANY_REQUESTS: 'rate_limited',
  SERVICE_UNAVAILABLE: 'unavailable',
  INTERNAL_SERVER_ERROR: 'internal_error',
};
/** Statuses of the body's refusals, whichever part of the gateway made them (the JSON reader, the upload reader). */
const BODY_CODES: Record<number, string> = { 413: 'payload_too_large', 415: 'unsupported_media_type' };
