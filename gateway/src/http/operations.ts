// One row per HTTP operation, and ONE registration that applies every check in a fixed order
// (docs/adr/0067-one-table-of-operations.md). A row names its method and path, who may call it
// (`session`: a signed-in member, or with no permission just the signed-in person; `apiKey` with a
// scope: the developer API; `public`: anyone), the permission its service calls need
// (services/common/src/roles.ts), the zod schemas of its path parameters, query and body, and its
// handler. A feature's rest.ts is its table; access/permissions.ts collects every table's rows, so the
// roles sweep knows each operation by its row and not by a path rebuilt from Express's mounting.
//
// The checks, in this order, for each face:
//   session rows   — the session (401), the workspace member (404), the role's permission (403), the
//                    body read (413, 415, 400), then the params, query and body validated (400);
//   apiKey rows    — the key (401 with WWW-Authenticate; an address that failed too many key checks is
//                    429 first), the key's rate limit (429), the body read (413, 415, 400), the scope
//                    (403), the chatbot the path names among the key's (404), the role header of the
//                    permission, then the body and query validated (400);
//   public rows    — the body read and validation alone.
// A row that reads its own body (a form, raw bytes under a signature: `readsOwnBody`) is given none
// parsed; its handler reads it with readBodyWith, after the same checks.
// The error shape stays each face's own: the router a table is registered on has the error handler
// (http/api.ts: `{ message }`; v1/router.ts: `{ error: { code, message } }`), and a validation error
// is the schema's first message (the dashboard's hand-written wording, kept by the schemas' custom
// messages) or, for the developer API, that message after the field's path.
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { setCurrentRole } from '@parley/common/context.ts';
import type { ApiScope } from '@parley/common/api-scopes.ts';
import { clientIp } from '@parley/common/http.ts';
import { can, PERMISSIONS, type Permission, type Role } from '@parley/common/roles.ts';
import { Code, ConnectError, forbidden, invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { ApiKeyCaller, KeyChecker } from '../access/api-keys.ts';
import { bearerToken } from '../access/bearer.ts';
import type { HeldStreams } from '../access/held-streams.ts';
import type { OpenStreams } from './open-streams.ts';
import { authenticate } from '../access/sessions.ts';
import type { AuthUser } from '../access/users.ts';
import { member, restCaller, type Member } from '../access/members.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { Clients } from './clients.ts';
import { HttpError } from './errors.ts';
import { jsonBodyReader, readJsonBody, type JsonBodyReader } from './json-body.ts';
export { readBodyWith } from './json-body.ts';
import { CHATBOT_NOT_FOUND, keyReaches, scopeMissing } from '../v1/call.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call an operation. */
export type Who = 'session' | 'public' | { apiKey: ApiScope; chatbot?: boolean };

/** What a row says of its operation, handler aside (the developer API's table, v1/routes.ts, is of these). */
export interface OperationSpec {
  method: Method;
  /** The whole path, as a browser sends it: `/api/workspace/webhooks/:id`. */
  path: string;
  who: Who;
  /** The workspace permission; a session row without one is the signed-in person's own (no workspace). */
  permission?: Permission;
  summary?: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /**
   * The handler reads the body itself (multipart/form-data, by its upload reader), once the caller is
   * checked: no schema validates it (`body` only documents it, on the developer API), the developer API
   * does not read it as JSON, and the dashboard reads it as JSON only when it is sent as JSON, as any row.
   */
  multipart?: boolean;
  /**
   * The handler reads the body itself (a form, raw bytes under a signature; readBodyWith): the gate
   * parses and validates none, so the handler's own reader, run after the caller's checks, is the first.
   */
  readsOwnBody?: boolean;
  /**
   * Called by a provider's servers, never by a browser (a messaging channel's webhook POST): the
   * dashboard registers it on the router the app puts ahead of every browser's layer (http/api.ts's
   * providerRouter), so its answer pays for none of a page's security headers nor for the walk past
   * every other row; the checks of its face are the same.
   */
  provider?: boolean;
  /** The success status (200 unless named) and, where cheap, the schema of its body. */
  status?: number;
  response?: z.ZodType;
  /** Also answers as server-sent events when asked. */
  streams?: boolean;
}

/** What the dashboard's handlers use beyond the request (http/api.ts's options). */
export interface OperationDeps {
  clients: Clients;
  logger: Logger;
  publicUrl: string;
  /** The model catalogue, which names the models chatbots answer with (chatbots' settings and the owner's data export name them). */
  catalogue: ModelCatalogue;
  /** How many members each plan allows a workspace (features/workspaces' Seats). */
  seats: { free: number; pro: number };
  /** The uploads' limits: a profile picture's and a knowledge file's bytes, and the deadline of the call handing a file on. */
  uploads: { maxPictureBytes: number; maxUploadBytes: number; uploadTimeoutMs: number };
  /** Deadline of one public chat answer (CHAT_TIMEOUT_MS). */
  chatTimeoutMs: number;
  /** How often a live stream sends `: ping` (SSE_PING_MS). */
  ssePingMs: number;
  /** The gateway's open live streams (a visitor's conversation, the inbox), ended when it shuts down. */
  streams?: OpenStreams;
  /** Members' long-lived responses, which end when access is taken away (access/held-streams.ts). */
  held: HeldStreams;
  /** "Add to Slack" (features/channels/slack-install.ts, ADR 64), built at start-up with its Redis, the operator's Slack app and a secret. */
  slackInstall?: {
    offered: boolean;
    start(m: Member, chatbotId: string, res: Response): Promise<{ authorizeUrl: string }>;
    callback(req: Request, res: Response): Promise<void>;
  };
  /** Stripe's deliveries, verified on their raw bytes and queued for billing (features/billing/stripe-events.ts). */
  stripeEvents?: { receive(rawBody: Buffer, signatureHeader: string | undefined): Promise<unknown> };
  /**
   * The channels' webhooks checked and queued by the gateway itself (features/channels/channel-intake.ts,
   * ADR 64, ADR 69), by its shape: http/ imports no feature.
   */
  intake?: {
    telegram(req: { connectionId: string; secret: string; body: Uint8Array }): Promise<unknown>;
    slack(req: { connectionId: string; signature: string; timestamp: string; body: Uint8Array }): Promise<{ challenge?: string }>;
    slackApp(req: { signature: string; timestamp: string; body: Uint8Array }): Promise<{ challenge?: string }>;
    meta(req: {
      channel: 'whatsapp' | 'messenger' | 'instagram';
      connectionId: string;
      signature: string;
      body: Uint8Array;
    }): Promise<unknown>;
    metaHandshake(req: {
      channel: 'whatsapp' | 'messenger' | 'instagram';
      connectionId: string;
      mode: string;
      verifyToken: string;
    }): Promise<void>;
  };
}

/** What a handler is given: the request, its caller, and the params, query and body as the row's schemas read them. */
export interface Call<B = unknown, Q = unknown, P = Record<string, string>> {
  req: Request;
  res: Response;
  /** The dashboard's clients and settings (the developer API's handlers hold their own). */
  app: OperationDeps;
  body: B;
  query: Q;
  params: P;
  /** Session rows with a permission: the member, checked. */
  member: Member;
  /** Session rows: the signed-in person. */
  user: AuthUser;
  /** apiKey rows: the key, its workspace. */
  key: ApiKeyCaller;
  ownerId: string;
  /** HeldStreams.mark() from before the caller was checked (apiKey and session rows), for a held stream. */
  accessMark: number;
}

/**
 * A row with its handler. What the handler returns is sent as JSON with the row's status; a handler
 * that answers itself (a stream, a file) returns nothing.
 */
export interface Operation extends OperationSpec {
  // The schemas' output types are the handler's business (operation() keeps them); the table holds rows of any.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handle: (call: Call<any, any, any>) => Promise<unknown>;
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

/** A row, its handler typed by its own schemas. */
export function operation<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
>(
  spec: Omit<OperationSpec, 'body' | 'query' | 'params'> & { body?: B; query?: Q; params?: P },
  handle: (call: Call<Out<B>, Out<Q>, P extends z.ZodType ? z.output<P> : Record<string, string>>) => Promise<unknown>,
): Operation {
  return { ...spec, handle };
}

/** The key of a row in access/permissions.ts: `GET /api/workspace/webhooks/:id`. */
export const operationKey = (row: Pick<OperationSpec, 'method' | 'path'>) => `${row.method} ${row.path}`;

/** What the dashboard face needs: what its handlers use, and the body limit. */
export interface DashboardFace {
  face: 'dashboard';
  deps: OperationDeps;
  bodyLimit: string;
}

/** What the developer API's face needs (v1/router.ts builds it). */
export interface ApiKeyFace {
  face: 'apiKey';
  keys: KeyChecker;
  held: HeldStreams;
  bodyLimit: string;
  /** The address's failed key checks (rate-limit.ts keyCheckLimiter). */
  guard: (ip: string, res: Response) => Parameters<KeyChecker['authenticate']>[1];
  /** The key's own rate limit (rate-limit.ts keyRateLimiter). */
  admit: (apiKeyId: string, res: Response) => Promise<void>;
}

export type Face = DashboardFace | ApiKeyFace;

export const JSON_BODY_ONLY = 'The body must be JSON, sent with "Content-Type: application/json"';

/**
 * Registers every row on the router, which is mounted at `prefix` (`/api`, `/api/v1`), each with the
 * checks of its face before its handler.
 */
export function registerOperations(router: Router, rows: readonly Operation[], face: Face, prefix: string): void {
  const json = jsonBodyReader(face.bodyLimit);
  for (const row of [...rows].sort(bySpecificity)) {
    if (!row.path.startsWith(prefix)) throw new Error(`${operationKey(row)} is not under ${prefix}`);
    const register = router[row.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'].bind(router);
    const gate = face.face === 'apiKey' ? apiKeyGate(row, face, json) : dashboardGate(row, face, json);
    register(row.path.slice(prefix.length) || '/', async (req: Request, res: Response) => {
      const call = await gate(req, res);
      const result = await row.handle(call);
      if (result !== undefined && !res.headersSent) sendJson(req, res, row.status ?? 200, result);
    });
  }
}

/**
 * What a handler returned, as res.json sends it (the same headers, in the same order, and the same
 * ETag), written as bytes once: a POST, PUT, PATCH or DELETE with a status that carries a body skips
 * res.send's content-type lookups and freshness check, which only a GET or HEAD can use. Anything
 * else, or an app whose JSON settings are not the defaults, goes through res.json.
 */
export function sendJson(req: Request, res: Response, status: number, value: unknown): void {
  const { app } = req;
  const plain =
    req.method !== 'GET' &&
    req.method !== 'HEAD' &&
    status !== 204 &&
    status !== 205 &&
    status !== 304 &&
    res.getHeader('content-type') === undefined &&
    res.getHeader('etag') === undefined &&
    res.getHeader('transfer-encoding') === undefined &&
    app.get('json replacer') === undefined &&
    app.get('json spaces') === undefined &&
    !app.get('json escape');
  const text = plain ? JSON.stringify(value) : undefined;
  if (text === undefined) {
    res.status(status).json(value);
    return;
  }
  const body = Buffer.from(text, 'utf8');
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(body.length));
  const etag = app.get('etag fn') as ((body: Buffer, encoding?: string) => string | undefined) | undefined;
  const tag = typeof etag === 'function' ? etag(body) : undefined;
  if (tag) res.setHeader('ETag', tag);
  res.end(body);
}

/**
 * The order Express tries the rows in: at the first place two paths differ in kind, a literal segment
 * before a parameter, so `/conversations/export` is never read as `/conversations/:conversationId`, nor
 * `/chatbot/public/…` as `/chatbot/:id/…`, whatever order the tables list them in. (Only paths of the
 * same length can match one request; the order between others does not matter, but is total.)
 */
function bySpecificity(a: Operation, b: Operation): number {
  const shape = (row: Operation) =>
    row.path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '1' : '0'))
      .join('');
  const [x, y] = [shape(a), shape(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

type Gate = (req: Request, res: Response) => Promise<Call>;

function dashboardGate(row: Operation, face: DashboardFace, json: JsonBodyReader): Gate {
  if (typeof row.who === 'object') throw new Error(`${operationKey(row)}: an API key's operation on the dashboard's router`);
  const who = row.who;
  return async (req, res) => {
    const call = { req, res, app: face.deps, accessMark: face.deps.held.mark() } as Call;
    if (who === 'session' && row.permission) {
      call.member = await member(face.deps.clients, restCaller(req), row.permission);
      call.user = call.member.user;
      call.ownerId = call.member.ownerId;
    } else if (who === 'session') {
      call.user = await authenticate(face.deps.clients, bearerToken(req));
    }
    // The body, read only now: a caller who may not call the operation learns nothing from its body.
    if (!row.readsOwnBody) await parseJson(json, req, res);
    call.params = (row.params ? validate(row.params, req.params, dashboardMessage) : req.params) as Record<string, string>;
    call.query = row.query ? validate(row.query, req.query, dashboardMessage) : undefined;
    if (!row.readsOwnBody) call.body = row.body ? validate(row.body, req.body, dashboardMessage) : req.body;
    return call;
  };
}

function apiKeyGate(row: Operation, face: ApiKeyFace, json: JsonBodyReader): Gate {
  if (typeof row.who !== 'object') throw new Error(`${operationKey(row)}: not an API key's operation on the developer API's router`);
  const { apiKey: scope, chatbot } = row.who;
  const permission = row.permission;
  if (!permission) throw new Error(`${operationKey(row)} names no permission`);
  const readsJson = !row.multipart && !row.readsOwnBody;
  return async (req, res) => {
    const accessMark = face.held.mark();
    const key = await face.keys.authenticate(bearerToken(req), face.guard(clientIp(req), res));
    await face.admit(key.apiKeyId, res);
    // Read only now: a body too large, of another type or malformed is answered with the key's headers.
    const raw = row.body && readsJson ? await readJson(json, req, res) : undefined;
    if (!key.scopes.has(scope)) throw forbidden(scopeMissing(scope));
    if (chatbot && !keyReaches(key, String(req.params.id))) throw notFound(CHATBOT_NOT_FOUND);
    // The services check the role as they would a member's, and mask what visitors wrote for one that does not read conversations.
    setCurrentRole(keyRole({ permission }, key.scopes));
    const body = row.body && readsJson ? validate(row.body, raw, apiMessage) : undefined;
    const query = row.query ? validate(row.query, req.query, apiMessage) : undefined;
    return { req, res, key, ownerId: key.workspaceId, accessMark, body, query, params: req.params } as Call;
  };
}

/**
 * The role a key's service calls carry on a route: the lowest that holds the route's permission; for
 * a key with the conversations:read scope, at least the lowest that reads conversations (an agent),
 * so visitors' words reach it as they were typed wherever an answer carries them (such a key reads the
 * conversations themselves anyway). A key without that scope reads them as a viewer does: contact
 * details masked (docs/api.md).
 */
export function keyRole(spec: { permission: Permission }, scopes: ReadonlySet<ApiScope>): Role {
  const lowest = PERMISSIONS[spec.permission];
  return scopes.has('conversations:read') && !can(lowest, 'conversations:read') ? PERMISSIONS['conversations:read'] : lowest;
}

/** The dashboard's JSON body, as express.json reads it (json-body.ts): another content type leaves it unread (an empty body). */
function parseJson(json: JsonBodyReader, req: Request, res: Response): Promise<void> {
  return readJsonBody(json, req, res);
}

/** The developer API's JSON body (an empty one reads as `{}`); a body of another type is 415, whatever the route's schema would say of it. */
async function readJson(json: JsonBodyReader, req: Request, res: Response): Promise<unknown> {
  // A body is there when its length is announced (and not zero) or it is chunked, as body-parser tells it.
  const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
  if (!hasBody) return {};
  if (!req.is('application/json')) throw new HttpError(415, JSON_BODY_ONLY);
  await parseJson(json, req, res);
  return req.body ?? {};
}

type Message = (issue: z.core.$ZodIssue) => string;
/** The dashboard's wording: the schema's message alone, as the hand-written readers gave it. */
const dashboardMessage: Message = (issue) => issue.message;
/** The developer API's: the field's path, then the message. */
const apiMessage: Message = (issue) => `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`;

/** The value, as the schema reads it; the first problem as a 400. */
function validate<T extends z.ZodType>(schema: T, value: unknown, message: Message): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalid(message(parsed.error.issues[0]));
}

/**
 * A schema from one of a feature's own readers (a function that returns the value or throws the
 * service kit's invalid()), for a field whose rule and wording the feature already owns.
 */
export function readWith<T>(reader: (value: unknown) => T): z.ZodType<T> {
  // Optional in an object, so a missing field reaches the reader as undefined, as body.field did.
  return z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      try {
        return reader(value);
      } catch (err) {
        if (!(err instanceof ConnectError) || err.code !== Code.InvalidArgument) throw err;
        ctx.addIssue({ code: 'custom', message: err.rawMessage, input: value });
        return z.NEVER;
      }
    }) as unknown as z.ZodType<T>;
}
