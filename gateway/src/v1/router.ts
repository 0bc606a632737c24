// The developer API under /api/v1 (docs/api.md, docs/adr/0033-developer-api.md). Each route of
// routes.ts's table is registered here with the same steps before its handler: the key (keys.ts,
// 401 with WWW-Authenticate; a client address that failed too many key checks is 429 before auth is
// asked, rate-limit.ts), the key's rate limit (rate-limit.ts, 429), then the body read (413, 415,
// 400), so every answer past the key check carries the rate limit headers; the route's scope (403),
// the chatbot the path names among the key's (404 for another), the role header of the route's
// permission on every service call (keyRole), and the body and query validated by the route's
// schemas (400). A browser's preflight is refused (403 cors_not_allowed): keys belong on servers.
// Errors are `{ error: { code, message } }`; every answer carries X-Request-Id (app.ts).
import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import type { z } from 'zod';
import { setCurrentRole } from '@parley/common/context.ts';
import type { ApiScope } from '@parley/common/api-scopes.ts';
import { clientIp } from '@parley/common/http.ts';
import { can, PERMISSIONS, type Role } from '@parley/common/roles.ts';
import { forbidden, invalid, notFound } from '@parley/common/rpc-errors.ts';
import { bearerToken } from '../access/bearer.ts';
import { bodyParserError, HttpError, mapError, type GraphQLErrorCode } from '../http/errors.ts';
import { cleanPath, noStore } from '../http/api.ts';
import { mcpOtherMethods, mcpRoutes } from '../features/mcp/mcp-route.ts';
import { chatRoutes } from './chat.ts';
import { CHATBOT_NOT_FOUND, keyReaches, scopeMissing, type ApiV1Options, type On, type V1Call } from './call.ts';
import { bearerChallenge } from '../access/api-keys.ts';
import { openApiDocument } from './openapi.ts';
import { keyCheckLimiter, keyRateLimiter } from './rate-limit.ts';
import { resourceRoutes } from './resources.ts';
import { API_V1_PREFIX, API_V1_ROUTES, type ApiRoute } from './routes.ts';

export const JSON_BODY_ONLY = 'The body must be JSON, sent with "Content-Type: application/json"';
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
  const json = express.json({ limit: opts.bodyLimit });
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

  const on: On = (key, handler) => {
    const [method, path] = key.split(' ') as [string, string];
    const spec: ApiRoute = API_V1_ROUTES[key];
    const register = router[method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'].bind(router);
    register(path.slice(API_V1_PREFIX.length), async (req: Request, res: Response) => {
      const accessMark = opts.held.mark();
      const caller = await keys.authenticate(bearerToken(req), checks.guard(clientIp(req), res));
      await limiter.admit(caller.apiKeyId, res);
      // Read only now: a body too large, of another type or malformed is answered with the key's headers.
      const raw = spec.body && !spec.multipart ? await readJson(json, req, res) : undefined;
      if (!caller.scopes.has(spec.scope)) throw forbidden(scopeMissing(spec.scope));
      if (spec.chatbot && !keyReaches(caller, String(req.params.id))) throw notFound(CHATBOT_NOT_FOUND);
      // The services check the role as they would a member's, and mask what visitors wrote for one that does not read conversations.
      setCurrentRole(keyRole(spec, caller.scopes));
      const body = spec.body && !spec.multipart ? validate(spec.body, raw) : undefined;
      const query = spec.query ? validate(spec.query, req.query) : undefined;
      await handler({ req, res, key: caller, ownerId: caller.workspaceId, accessMark, body, query } as V1Call<typeof key>);
    });
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

/** The JSON body (an empty one reads as `{}`); a body of another type is 415, whatever the route's schema would say of it. */
async function readJson(json: express.RequestHandler, req: Request, res: Response): Promise<unknown> {
  // A body is there when its length is announced (and not zero) or it is chunked, as body-parser tells it.
  const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
  if (!hasBody) return {};
  if (!req.is('application/json')) throw new HttpError(415, JSON_BODY_ONLY);
  await new Promise<void>((resolve, reject) => json(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  return req.body ?? {};
}

/**
 * The role a key's service calls carry on a route: the lowest that holds the route's permission; for
 * a key with the conversations:read scope, at least the lowest that reads conversations (an agent),
 * so visitors' words reach it as they were typed wherever an answer carries them (such a key reads the
 * conversations themselves anyway). A key without that scope reads them as a viewer does: contact
 * details masked (docs/api.md).
 */
export function keyRole(spec: Pick<ApiRoute, 'permission'>, scopes: ReadonlySet<ApiScope>): Role {
  const lowest = PERMISSIONS[spec.permission];
  return scopes.has('conversations:read') && !can(lowest, 'conversations:read') ? PERMISSIONS['conversations:read'] : lowest;
}

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

/** The value, as the schema reads it; the first problem as a 400 naming its field. */
function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  throw invalid(`${where}${issue.message}`);
}
