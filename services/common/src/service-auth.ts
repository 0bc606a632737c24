// Service-to-service trust (docs/adr/0012-service-to-service-trust.md): every call between the
// processes carries a short-lived token signed with the deployment's SERVICE_SECRET, naming the
// caller; each service answers only the callers its call graph allows. A network peer without the
// secret gets 401 and nothing else.
//
// The token: `<caller>.<unix seconds>.<base64url HMAC-SHA256(secret, "<caller>.<unix seconds>")>`,
// sent as `Authorization: Bearer <token>`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DescService } from '@bufbuild/protobuf';
import type { RequestHandler } from 'express';
import { setCurrentRole } from './context.ts';
import { can, isRole, type Permission } from './roles.ts';

/** The processes that call others. */
export type Caller = 'gateway' | 'chat' | 'chatbot';

/** Who signs a call: the calling process's name and the deployment's secret. */
export interface ServiceCredentials {
  caller: Caller;
  secret: string;
}

/**
 * Who a service answers: the deployment's secret and the callers its call graph allows. A token
 * signed with `previousSecret` (SERVICE_SECRET_PREVIOUS) is accepted too, so the secret can rotate
 * while processes with the old and the new one run side by side (docs/adr/0025-process-lifecycle.md).
 */
export interface ServiceTrust {
  secret: string;
  previousSecret?: string;
  callers: readonly Caller[];
  /**
   * The owner-facing methods and the permission each needs (roles.ts): a gateway call to one of
   * them must carry a role (ROLE_HEADER) that holds it. Calls between services carry no role and are
   * not checked: the call graph governs them.
   */
  permissions?: MethodPermissions;
}

/** The member's role the gateway's signed calls carry (docs/adr/0030-workspaces.md). */
export const ROLE_HEADER = 'x-parley-role';

/** Method paths (`/<service type name>/<Method>`) and the permission each needs. */
export type MethodPermissions = ReadonlyMap<string, Permission>;

/** A service's table of methods and permissions, keyed by the methods' names in the proto. */
export function methodPermissions<S extends DescService>(
  service: S,
  table: Partial<Record<S['methods'][number]['name'], Permission>>,
): MethodPermissions {
  const known = new Set(service.methods.map((m) => m.name));
  for (const name of Object.keys(table)) if (!known.has(name)) throw new Error(`${service.typeName} has no method ${name}`);
  return new Map(
    Object.entries(table as Record<string, Permission>).map(([name, permission]) => [`/${service.typeName}/${name}`, permission]),
  );
}

/** Why a gateway call's role may not call a method, or undefined when it may. */
export function roleRefusal(
  caller: Caller,
  path: string,
  role: string | string[] | undefined,
  permissions: MethodPermissions | undefined,
): string | undefined {
  if (caller !== 'gateway' || !permissions) return undefined;
  const permission = permissions.get(path);
  if (!permission) return undefined;
  if (!isRole(role)) return `no role for ${path}`;
  return can(role, permission) ? undefined : `role ${role} lacks ${permission} for ${path}`;
}

/**
 * The secret every process uses when SERVICE_SECRET is unset outside production (config.ts): for
 * development and tests only, refused in production.
 */
export const DEVELOPMENT_SERVICE_SECRET = 'parley-development-service-secret-not-for-production';

/** How far a token's time may be from the receiver's clock, either way (clock skew included). */
export const TOKEN_WINDOW_SECONDS = 60;
/** A client reuses its token this long, well inside the window. */
const TOKEN_REUSE_SECONDS = 30;

const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

export function signServiceToken(credentials: ServiceCredentials, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const payload = `${credentials.caller}.${nowSeconds}`;
  return `${payload}.${mac(credentials.secret, payload)}`;
}

/** A token per caller, renewed every TOKEN_REUSE_SECONDS: one HMAC per half minute, not per call. */
export function serviceTokenSource(credentials: ServiceCredentials): () => string {
  let token = '';
  let signedAt = -Infinity;
  return () => {
    const now = Math.floor(Date.now() / 1000);
    if (now - signedAt >= TOKEN_REUSE_SECONDS || now < signedAt) {
      token = signServiceToken(credentials, now);
      signedAt = now;
    }
    return token;
  };
}

/**
 * The last token each caller presented whose signature checked out, per trust: a caller reuses its
 * token for TOKEN_REUSE_SECONDS (serviceTokenSource), so the receiver computes one HMAC per caller
 * and half minute instead of one per call. Only the signature is remembered; the time window and the
 * allowed callers are checked on every call, and a token that differs in any byte is checked afresh.
 */
const verified = new WeakMap<ServiceTrust, Map<string, { payload: string; signature: Buffer }>>();

/** The caller a valid token names, or why it is refused (the reason is logged, never sent). */
export function verifyServiceToken(
  authorization: string | undefined,
  trust: ServiceTrust,
  nowSeconds = Math.floor(Date.now() / 1000),
): { caller: Caller } | { refused: string } {
  const m = /^Bearer ([a-z]{1,32})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(authorization ?? '');
  if (!m) return { refused: authorization ? 'malformed service token' : 'no service token' };
  const [, caller, seconds, signature] = m;
  const payload = `${caller}.${seconds}`;
  const presented = Buffer.from(signature);
  let known = verified.get(trust);
  const last = known?.get(caller);
  // Compared in constant time, as a fresh signature would be: the remembered one is a valid signature.
  const remembered = last !== undefined && last.payload === payload && timingSafeEqual(presented, last.signature);
  if (!remembered) {
    const signed = (secret: string) => timingSafeEqual(presented, Buffer.from(mac(secret, payload)));
    if (!signed(trust.secret) && !(trust.previousSecret && signed(trust.previousSecret))) return { refused: 'bad signature' };
    if (!known) verified.set(trust, (known = new Map()));
    // Only for a caller the trust names: a made-up caller name cannot grow the map.
    if (trust.callers.includes(caller as Caller)) known.set(caller, { payload, signature: presented });
  }
  if (Math.abs(nowSeconds - Number(seconds)) > TOKEN_WINDOW_SECONDS) return { refused: 'expired service token' };
  if (!trust.callers.includes(caller as Caller)) return { refused: `caller ${caller} not allowed` };
  return { caller: caller as Caller };
}

/**
 * Express middleware in front of every RPC route (the lean unary handler and the generic Connect
 * handler alike): a call without a valid token is answered 401 with Connect's error JSON before its
 * body is read, so the handler never runs.
 */
export function requireServiceToken(trust: ServiceTrust, onRefused: (reason: string) => void): RequestHandler {
  if (trust.secret.length < 32 || (trust.previousSecret !== undefined && trust.previousSecret.length < 32))
    throw new Error('the service secret must have at least 32 characters');
  const body = JSON.stringify({ code: 'unauthenticated', message: 'service credentials required' });
  const denied = JSON.stringify({ code: 'permission_denied', message: 'Your role in this workspace does not allow this.' });
  const refuse = (res: Parameters<RequestHandler>[1], status: number, answer: string) => {
    // The body is not read: the connection cannot be reused.
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer)), connection: 'close' });
    res.end(answer);
  };
  return (req, res, next) => {
    const result = verifyServiceToken(req.headers.authorization, trust);
    if (!('caller' in result)) {
      onRefused(result.refused);
      return refuse(res, 401, body);
    }
    const role = req.headers[ROLE_HEADER];
    const refusal = roleRefusal(result.caller, req.path, role, trust.permissions);
    if (refusal === undefined) {
      // The member's role the gateway vouched for, for the use cases whose answer depends on it
      // (visitors' words masked for a role that does not read conversations: redaction.ts).
      if (result.caller === 'gateway' && isRole(role)) setCurrentRole(role);
      return next();
    }
    onRefused(refusal);
    // A trusted caller's call: its body is read and dropped, so the connection stays open (a closed
    // one would make the caller set this replica aside as draining).
    req.resume();
    req.once('end', () => {
      res.writeHead(403, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(denied)) });
      res.end(denied);
    });
  };
}
