// A local stand-in for the part of Stripe's API Parley uses, for tests, the end-to-end suite and the
// offline stack, spoken as the stripe SDK speaks it: form-encoded bodies with nested keys
// (`metadata[userId]`, `line_items[0][price]`), the secret key (Bearer or Basic), Idempotency-Key
// (the same key replays the first answer; with other parameters it is refused, as Stripe does) and
// Stripe's error bodies. It knows a few prices and refuses what Stripe would refuse (an unknown
// price or customer, a recurring price in payment mode). Customers can be deleted (their
// subscriptions are canceled, as Stripe does) and given customer portal sessions. Every request is
// recorded for assertions.
// Also: builders of Stripe event JSON and the Stripe-Signature header, signed exactly as Stripe signs
// (the stripe SDK's generateTestHeaderString), for webhook tests and the test-mode checkout.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake } from './serve.ts';
import Stripe from 'stripe';

type Json = Record<string, unknown>;

/** The secret key the fake accepts unless told otherwise. */
export const FAKE_STRIPE_KEY = 'sk_test_parley_fake';
/** The fake's prices: the pro plan's monthly $10.00 and a one-time $5.00 credit top-up. */
export const FAKE_PRICE_PRO = 'price_parley_pro_monthly';
export const FAKE_PRICE_TOPUP = 'price_parley_credit_topup';
/** The API version the fake reports in events (the stripe 23 SDK's own). */
export const FAKE_STRIPE_API_VERSION = '2026-10-28.endive';

export interface FakeStripePrice {
  unit_amount: number;
  currency: string;
  /** Set for a subscription's price. */
  recurring: { interval: 'day' | 'week' | 'month' | 'year' } | null;
}

export const DEFAULT_FAKE_PRICES: Record<string, FakeStripePrice> = {
  [FAKE_PRICE_PRO]: { unit_amount: 1000, currency: 'usd', recurring: { interval: 'month' } },
  [FAKE_PRICE_TOPUP]: { unit_amount: 500, currency: 'usd', recurring: null },
};

export interface FakeStripeRequest {
  method: string;
  /** e.g. "/v1/checkout/sessions". */
  path: string;
  /** The form body (or query string for GET) parsed as Stripe parses it. */
  params: Json;
  /** The body as sent. */
  rawBody: string;
  idempotencyKey: string | undefined;
  stripeVersion: string | undefined;
}

export interface FakeStripeBehaviour {
  /** Answer every API request with this HTTP status and a Stripe error body. */
  failWith: number | null;
  /** Wait before answering, in ms. */
  delayMs: number;
}

export interface FakeStripe {
  /** The base URL for STRIPE_API_BASE, e.g. http://127.0.0.1:12111 (no path). */
  url: string;
  host: string;
  port: number;
  apiKey: string;
  /** Every API request received, oldest first (idempotent replays included). */
  requests: FakeStripeRequest[];
  /** The objects created, by id. A deleted customer stays as Stripe shows it: `{ id, object, deleted: true }`. */
  customers: Map<string, Json>;
  checkoutSessions: Map<string, Json>;
  subscriptions: Map<string, Json>;
  portalSessions: Map<string, Json>;
  /** The requests to one path and method, e.g. requestsTo('POST', '/v1/customers'). */
  requestsTo(method: string, path: string): FakeStripeRequest[];
  /**
   * Completes a checkout as a paying customer would: the session becomes complete and paid, a
   * subscription checkout creates an active subscription. Returns the `checkout.session.completed`
   * event Stripe would send (not signed: see signStripePayload).
   */
  completeCheckoutSession(sessionId: string, opts?: { paymentStatus?: 'paid' | 'unpaid' | 'no_payment_required' }): StripeEventJson;
  /** Cancels a subscription now; returns the `customer.subscription.deleted` event Stripe would send. */
  cancelSubscription(subscriptionId: string): StripeEventJson;
  setBehaviour(change: Partial<FakeStripeBehaviour>): void;
  /** Back to the defaults; forgets requests, objects and idempotency keys. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULTS: FakeStripeBehaviour = { failWith: null, delayMs: 0 };

/** A Stripe-looking id: prefix, underscore, 24 alphanumerics. */
export function fakeStripeId(prefix: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `${prefix}_${[...randomBytes(24)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

const now = () => Math.floor(Date.now() / 1000);

class StripeApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param?: string;
  readonly code?: string;
  constructor(status: number, type: string, message: string, param?: string, code?: string) {
    super(message);
    this.status = status;
    this.type = type;
    this.param = param;
    this.code = code;
  }
}

const missing = (param: string) =>
  new StripeApiError(400, 'invalid_request_error', `Missing required param: ${param}.`, param, 'parameter_missing');
const invalidParam = (param: string, message: string) =>
  new StripeApiError(400, 'invalid_request_error', message, param, 'parameter_invalid_string');
const noSuch = (kind: string, id: string, param?: string) =>
  new StripeApiError(param ? 400 : 404, 'invalid_request_error', `No such ${kind}: '${id}'`, param ?? 'id', 'resource_missing');

/**
 * Parses a form body as Stripe does: `a[b]=1` → { a: { b: '1' } }, `a[0][b]=1` → { a: [{ b: '1' }] },
 * `a[]=1&a[]=2` → { a: ['1', '2'] }. Values stay strings. Throws on a malformed key.
 */
export function parseStripeForm(body: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!match) throw new StripeApiError(400, 'invalid_request_error', `Invalid parameter name: ${key}`, key);
    const path = [match[1], ...[...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])];
    let node: Json = root;
    for (let i = 0; i < path.length; i++) {
      const container = node;
      // `[]` appends: the next free index of the container.
      const segment = path[i] === '' ? String(Object.keys(container).length) : path[i];
      if (i === path.length - 1) {
        container[segment] = value;
      } else {
        const next = container[segment];
        if (next !== undefined && (typeof next !== 'object' || next === null)) {
          throw new StripeApiError(400, 'invalid_request_error', `Invalid parameter: ${key} mixes a value and a hash`, key);
        }
        node = (next as Json | undefined) ?? (container[segment] = {});
      }
    }
  }
  return arraysFromIndices(root) as Json;
}

/** Hashes whose keys are exactly 0..n-1 become arrays (Stripe's indexed array encoding). */
function arraysFromIndices(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Json).map(([k, v]) => [k, arraysFromIndices(v)] as const);
  const keys = entries.map(([k]) => k);
  if (
    keys.length > 0 &&
    keys.every((k) => /^\d+$/.test(k)) &&
    keys
      .map(Number)
      .sort((a, b) => a - b)
      .every((n, i) => n === i)
  ) {
    return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, v]) => v);
  }
  return Object.fromEntries(entries);
}

const optionalText = (params: Json, name: string, max = 5000): string | undefined => {
  const v = params[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw invalidParam(name, `Invalid string: ${name} must be a string.`);
  if (v.length > max) throw invalidParam(name, `Invalid string: ${name} must be at most ${max} characters.`);
  return v;
};

/** Stripe's metadata rules: at most 50 keys of up to 40 characters, string values of up to 500. */
function metadataOf(value: unknown, param: string): Record<string, string> {
  if (value === undefined || value === '') return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidParam(param, `Invalid object: ${param} must be a hash.`);
  const entries = Object.entries(value as Json);
  if (entries.length > 50) throw invalidParam(param, `Invalid ${param}: at most 50 keys.`);
  for (const [k, v] of entries) {
    if (k.length > 40) throw invalidParam(`${param}[${k}]`, `Invalid ${param}: keys must be at most 40 characters.`);
    if (typeof v !== 'string' || v.length > 500)
      throw invalidParam(`${param}[${k}]`, `Invalid ${param}: values must be strings of at most 500 characters.`);
  }
  // An empty value unsets the key.
  return Object.fromEntries(entries.filter(([, v]) => v !== '')) as Record<string, string>;
}

function urlParam(params: Json, name: string): string | undefined {
  const v = optionalText(params, name, 5000);
  if (v === undefined) return undefined;
  try {
    new URL(v);
  } catch {
    throw invalidParam(name, `Not a valid URL: ${name}`);
  }
  return v;
}

export async function startFakeStripe(
  opts: Partial<FakeStripeBehaviour> & { port?: number; host?: string; apiKey?: string; prices?: Record<string, FakeStripePrice> } = {},
): Promise<FakeStripe> {
  const { port = 0, host = '127.0.0.1', apiKey = FAKE_STRIPE_KEY, prices = DEFAULT_FAKE_PRICES, ...initial } = opts;
  let behaviour: FakeStripeBehaviour = { ...DEFAULTS, ...initial };
  const requests: FakeStripeRequest[] = [];
  const customers = new Map<string, Json>();
  const checkoutSessions = new Map<string, Json>();
  const subscriptions = new Map<string, Json>();
  const portalSessions = new Map<string, Json>();
  /** A checkout session's line items and subscription metadata, kept beside it as Stripe does. */
  const lineItems = new Map<string, { items: { price: string; quantity: number }[]; subscriptionMetadata: Record<string, string> }>();
  /** Idempotency key → the first request's fingerprint and answer. */
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string }>();
  let baseUrl = '';

  const createCustomer = (params: Json): Json => {
    const customer: Json = {
      id: fakeStripeId('cus'),
      object: 'customer',
      created: now(),
      email: optionalText(params, 'email', 512) ?? null,
      name: optionalText(params, 'name', 256) ?? null,
      description: optionalText(params, 'description') ?? null,
      metadata: metadataOf(params.metadata, 'metadata'),
      livemode: false,
    };
    customers.set(customer.id as string, customer);
    return customer;
  };

  /** The customer, unless unknown or deleted (Stripe answers resource_missing for both). */
  const liveCustomer = (id: string): Json | undefined => {
    const customer = customers.get(id);
    return customer && !customer.deleted ? customer : undefined;
  };

  /** Deleting a customer cancels their subscriptions at once; Stripe then shows only `deleted: true`. */
  const deleteCustomer = (id: string): Json => {
    if (!liveCustomer(id)) throw noSuch('customer', id);
    for (const subscription of subscriptions.values()) if (subscription.customer === id) cancel(subscription.id as string);
    const deleted: Json = { id, object: 'customer', deleted: true };
    customers.set(id, deleted);
    return deleted;
  };

  const createPortalSession = (params: Json): Json => {
    const customer = optionalText(params, 'customer', 255);
    if (customer === undefined) throw missing('customer');
    if (!liveCustomer(customer)) throw noSuch('customer', customer, 'customer');
    const id = fakeStripeId('bps');
    const session: Json = {
      id,
      object: 'billing_portal.session',
      configuration: 'bpc_fake_default',
      created: now(),
      customer,
      flow: null,
      livemode: false,
      locale: null,
      on_behalf_of: null,
      return_url: urlParam(params, 'return_url') ?? null,
      url: `${baseUrl}/p/session/${id}`,
    };
    portalSessions.set(id, session);
    return session;
  };

  const createCheckoutSession = (params: Json): Json => {
    const mode = params.mode;
    if (mode === undefined) throw missing('mode');
    if (mode !== 'payment' && mode !== 'subscription' && mode !== 'setup')
      throw invalidParam('mode', `Invalid mode: must be one of payment, setup, or subscription`);
    const customer = optionalText(params, 'customer', 255);
    if (customer !== undefined && !liveCustomer(customer)) throw noSuch('customer', customer, 'customer');
    if (params.subscription_data !== undefined && mode !== 'subscription') {
      throw invalidParam('subscription_data', 'You can only use `subscription_data` in `subscription` mode.');
    }
    const subscriptionMetadata =
      params.subscription_data === undefined ? {} : metadataOf((params.subscription_data as Json).metadata, 'subscription_data[metadata]');

    const rawItems = params.line_items;
    if (mode !== 'setup' && rawItems === undefined) throw missing('line_items');
    if (rawItems !== undefined && !Array.isArray(rawItems)) throw invalidParam('line_items', 'Invalid array: line_items must be an array.');
    const items = ((rawItems ?? []) as unknown[]).map((raw, i) => {
      const item = (typeof raw === 'object' && raw !== null ? raw : {}) as Json;
      const priceId = optionalText(item, 'price', 255);
      if (priceId === undefined) throw missing(`line_items[${i}][price]`);
      const price = prices[priceId];
      if (!price) throw noSuch('price', priceId, `line_items[${i}][price]`);
      const quantity = item.quantity === undefined ? undefined : Number(item.quantity);
      if (quantity === undefined) throw missing(`line_items[${i}][quantity]`);
      if (!Number.isInteger(quantity) || quantity < 1 || String(item.quantity) !== String(quantity)) {
        throw invalidParam(`line_items[${i}][quantity]`, 'Invalid integer: quantity must be a positive integer.');
      }
      if (mode === 'payment' && price.recurring) {
        throw invalidParam(
          `line_items[${i}][price]`,
          'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.',
        );
      }
      return {
        price: priceId,
        quantity,
        amount: price.unit_amount * quantity,
        currency: price.currency,
        recurring: price.recurring !== null,
      };
    });
    if (mode === 'subscription' && !items.some((i) => i.recurring)) {
      throw invalidParam('line_items', 'You must provide at least one recurring price in `subscription` mode when using prices.');
    }
    const amountTotal = items.reduce((sum, i) => sum + i.amount, 0);
    const id = fakeStripeId('cs_test');
    const session: Json = {
      id,
      object: 'checkout.session',
      amount_subtotal: amountTotal,
      amount_total: amountTotal,
      cancel_url: urlParam(params, 'cancel_url') ?? null,
      client_reference_id: optionalText(params, 'client_reference_id', 200) ?? null,
      created: now(),
      currency: items[0]?.currency ?? null,
      customer: customer ?? null,
      customer_email: optionalText(params, 'customer_email', 512) ?? null,
      expires_at: now() + 24 * 3600,
      livemode: false,
      metadata: metadataOf(params.metadata, 'metadata'),
      mode,
      payment_intent: null,
      payment_status: 'unpaid',
      status: 'open',
      subscription: null,
      success_url: urlParam(params, 'success_url') ?? null,
      url: `${baseUrl}/c/pay/${id}`,
    };
    checkoutSessions.set(id, session);
    lineItems.set(id, { items, subscriptionMetadata });
    return session;
  };

  const updateSubscription = (id: string, params: Json): Json => {
    const subscription = subscriptions.get(id);
    if (!subscription) throw noSuch('subscription', id);
    if (params.metadata !== undefined)
      subscription.metadata = { ...(subscription.metadata as Json), ...metadataOf(params.metadata, 'metadata') };
    if (params.cancel_at_period_end !== undefined) {
      if (params.cancel_at_period_end !== 'true' && params.cancel_at_period_end !== 'false')
        throw invalidParam('cancel_at_period_end', 'Invalid boolean');
      subscription.cancel_at_period_end = params.cancel_at_period_end === 'true';
    }
    return subscription;
  };

  const cancel = (id: string): Json => {
    const subscription = subscriptions.get(id);
    if (!subscription) throw noSuch('subscription', id);
    if (subscription.status !== 'canceled') Object.assign(subscription, { status: 'canceled', canceled_at: now(), ended_at: now() });
    return subscription;
  };

  const route = (method: string, path: string, params: Json): Json => {
    if (method === 'POST' && path === '/v1/customers') return createCustomer(params);
    if (method === 'POST' && path === '/v1/checkout/sessions') return createCheckoutSession(params);
    if (method === 'POST' && path === '/v1/billing_portal/sessions') return createPortalSession(params);
    let m = /^\/v1\/customers\/([^/]+)$/.exec(path);
    if (m && method === 'GET') return customers.get(m[1]) ?? throwError(noSuch('customer', m[1]));
    if (m && method === 'DELETE') return deleteCustomer(m[1]);
    m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (m && method === 'GET') return checkoutSessions.get(m[1]) ?? throwError(noSuch('checkout.session', m[1]));
    m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (m && method === 'GET') return subscriptions.get(m[1]) ?? throwError(noSuch('subscription', m[1]));
    if (m && method === 'POST') return updateSubscription(m[1], params);
    if (m && method === 'DELETE') return cancel(m[1]);
    throw new StripeApiError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  };

  const send = (res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'request-id': fakeStripeId('req'),
      'stripe-version': FAKE_STRIPE_API_VERSION,
      ...extra,
    });
    res.end(body);
  };
  const errorBody = (err: StripeApiError) =>
    JSON.stringify({
      error: { type: err.type, message: err.message, ...(err.param && { param: err.param }), ...(err.code && { code: err.code }) },
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const idempotencyKey = header(req, 'idempotency-key');
    const b = behaviour;
    if (b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
    if (res.destroyed) return;

    let params: Json;
    try {
      params = parseStripeForm(method === 'GET' || method === 'DELETE' ? url.search.slice(1) : rawBody);
    } catch (err) {
      return send(res, 400, errorBody(err as StripeApiError));
    }
    requests.push({ method, path: url.pathname, params, rawBody, idempotencyKey, stripeVersion: header(req, 'stripe-version') });

    const auth = header(req, 'authorization');
    // Stripe takes the key as a Bearer token (the SDK) or as the Basic user name (curl -u sk_...:).
    const key = auth?.startsWith('Basic ')
      ? Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0]
      : auth?.replace(/^Bearer /, '');
    if (key !== apiKey) {
      const message = auth ? `Invalid API Key provided: ${(key ?? '').slice(0, 8)}****` : 'You did not provide an API key.';
      return send(res, 401, JSON.stringify({ error: { type: 'invalid_request_error', message } }));
    }
    if (b.failWith)
      return send(
        res,
        b.failWith,
        errorBody(new StripeApiError(b.failWith, b.failWith >= 500 ? 'api_error' : 'invalid_request_error', `Fake failure ${b.failWith}`)),
      );
    if (
      method === 'POST' &&
      req.headers['content-type'] &&
      !String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')
    ) {
      return send(
        res,
        400,
        errorBody(new StripeApiError(400, 'invalid_request_error', 'Invalid request: the body must be application/x-www-form-urlencoded.')),
      );
    }

    const fingerprint = `${method} ${url.pathname} ${rawBody}`;
    if (idempotencyKey && method === 'POST') {
      const earlier = idempotent.get(idempotencyKey);
      if (earlier) {
        if (earlier.fingerprint !== fingerprint) {
          const message = `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`;
          return send(res, 400, JSON.stringify({ error: { type: 'idempotency_error', message } }));
        }
        return send(res, earlier.status, earlier.body, { 'idempotent-replayed': 'true', 'idempotency-key': idempotencyKey });
      }
    }
    let status = 200;
    let body: string;
    try {
      body = JSON.stringify(route(method, url.pathname, params));
    } catch (err) {
      if (!(err instanceof StripeApiError)) throw err;
      status = err.status;
      body = errorBody(err);
    }
    // Stripe keeps the answer of a key (errors of a validated request included) and replays it.
    if (idempotencyKey && method === 'POST') idempotent.set(idempotencyKey, { fingerprint, status, body });
    send(res, status, body, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
  };

  const { origin, close } = await serveFake(
    'Stripe',
    handle,
    (res, message) => send(res, 500, JSON.stringify({ error: { type: 'api_error', message } })),
    host,
    port,
  );
  baseUrl = origin;

  return {
    url: baseUrl,
    host,
    port: Number(new URL(origin).port),
    apiKey,
    requests,
    customers,
    checkoutSessions,
    subscriptions,
    portalSessions,
    requestsTo: (method, path) => requests.filter((r) => r.method === method && r.path === path),
    completeCheckoutSession(sessionId, completeOpts = {}) {
      const session = checkoutSessions.get(sessionId);
      if (!session) throw new Error(`fake Stripe: no checkout session ${sessionId}`);
      if (session.status !== 'complete') {
        session.status = 'complete';
        session.payment_status = completeOpts.paymentStatus ?? 'paid';
        if (session.mode === 'subscription') {
          const subscription: Json = {
            id: fakeStripeId('sub'),
            object: 'subscription',
            customer: session.customer,
            status: 'active',
            metadata: lineItems.get(sessionId)?.subscriptionMetadata ?? {},
            items: {
              object: 'list',
              data: lineItems.get(sessionId)?.items.map((i) => ({ price: { id: i.price }, quantity: i.quantity })) ?? [],
            },
            cancel_at_period_end: false,
            canceled_at: null,
            ended_at: null,
            created: now(),
            livemode: false,
          };
          subscriptions.set(subscription.id as string, subscription);
          session.subscription = subscription.id;
        } else if (session.mode === 'payment') {
          session.payment_intent = fakeStripeId('pi');
        }
      }
      return stripeEvent('checkout.session.completed', structuredClone(session));
    },
    cancelSubscription(subscriptionId) {
      return stripeEvent('customer.subscription.deleted', structuredClone(cancel(subscriptionId)));
    },
    setBehaviour(change) {
      behaviour = { ...behaviour, ...change };
    },
    reset() {
      behaviour = { ...DEFAULTS, ...initial };
      requests.length = 0;
      customers.clear();
      checkoutSessions.clear();
      subscriptions.clear();
      portalSessions.clear();
      lineItems.clear();
      idempotent.clear();
    },
    close,
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function throwError(err: Error): never {
  throw err;
}

// ---------------------------------------------------------------------------------------------
// Stripe events: built as Stripe sends them, signed as Stripe signs them.

/** A Stripe event as delivered to a webhook endpoint. */
export interface StripeEventJson {
  id: string;
  object: 'event';
  api_version: string;
  /** Unix seconds: when Stripe created the event (billing orders subscription changes by it). */
  created: number;
  data: { object: Json; previous_attributes?: Json };
  livemode: boolean;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

/** The envelope of any event around its object; `id` and `created` default to a new id and now. */
export function stripeEvent(
  type: string,
  object: Json,
  opts: { id?: string; created?: number; previousAttributes?: Json } = {},
): StripeEventJson {
  return {
    id: opts.id ?? fakeStripeId('evt'),
    object: 'event',
    api_version: FAKE_STRIPE_API_VERSION,
    created: opts.created ?? now(),
    data: { object, ...(opts.previousAttributes && { previous_attributes: opts.previousAttributes }) },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

interface EventTiming {
  /** The event's id (default: new). */
  eventId?: string;
  /** Unix seconds (default: now). */
  created?: number;
}

/** checkout.session.completed for the pro subscription, as a Checkout that billing created ends. */
export function subscriptionCheckoutCompletedEvent(
  o: EventTiming & { userId: string; customerId: string; subscriptionId: string; sessionId?: string; amountTotal?: number; email?: string },
): StripeEventJson {
  return stripeEvent(
    'checkout.session.completed',
    checkoutSessionObject({
      id: o.sessionId ?? fakeStripeId('cs_test'),
      mode: 'subscription',
      userId: o.userId,
      customerId: o.customerId,
      metadata: { userId: o.userId, type: 'subscription', plan: 'pro' },
      amountTotal: o.amountTotal ?? 1000,
      paymentStatus: 'paid',
      subscription: o.subscriptionId,
      email: o.email,
      created: o.created,
    }),
    { id: o.eventId, created: o.created },
  );
}

/** checkout.session.completed for a credit top-up: `amountTotal` in cents is what gets credited. */
export function topUpCheckoutCompletedEvent(
  o: EventTiming & {
    userId: string;
    customerId: string;
    sessionId?: string;
    amountTotal: number;
    currency?: string;
    paymentStatus?: 'paid' | 'unpaid' | 'no_payment_required';
    email?: string;
  },
): StripeEventJson {
  return stripeEvent(
    'checkout.session.completed',
    checkoutSessionObject({
      id: o.sessionId ?? fakeStripeId('cs_test'),
      mode: 'payment',
      userId: o.userId,
      customerId: o.customerId,
      metadata: { userId: o.userId, type: 'credit_topup' },
      amountTotal: o.amountTotal,
      currency: o.currency,
      paymentStatus: o.paymentStatus ?? 'paid',
      paymentIntent: fakeStripeId('pi'),
      email: o.email,
      created: o.created,
    }),
    { id: o.eventId, created: o.created },
  );
}

/** customer.subscription.deleted: the subscription ended (canceled). */
export function subscriptionDeletedEvent(
  o: EventTiming & { subscriptionId: string; customerId: string; userId?: string },
): StripeEventJson {
  const at = o.created ?? now();
  return stripeEvent('customer.subscription.deleted', subscriptionObject({ ...o, status: 'canceled', canceledAt: at }), {
    id: o.eventId,
    created: at,
  });
}

/** customer.subscription.updated with the subscription's new status (e.g. past_due, unpaid, canceled, active). */
export function subscriptionUpdatedEvent(
  o: EventTiming & { subscriptionId: string; customerId: string; userId?: string; status: string; previousStatus?: string },
): StripeEventJson {
  const at = o.created ?? now();
  return stripeEvent('customer.subscription.updated', subscriptionObject({ ...o, canceledAt: o.status === 'canceled' ? at : null }), {
    id: o.eventId,
    created: at,
    previousAttributes: o.previousStatus ? { status: o.previousStatus } : undefined,
  });
}

/** A checkout.session object as Stripe puts it in events. */
export function checkoutSessionObject(o: {
  id: string;
  mode: 'payment' | 'subscription';
  userId: string;
  customerId: string;
  metadata: Record<string, string>;
  amountTotal: number;
  currency?: string;
  paymentStatus: string;
  subscription?: string;
  paymentIntent?: string;
  email?: string;
  created?: number;
}): Json {
  const created = o.created ?? now();
  return {
    id: o.id,
    object: 'checkout.session',
    amount_subtotal: o.amountTotal,
    amount_total: o.amountTotal,
    cancel_url: null,
    client_reference_id: o.userId,
    created,
    currency: o.currency ?? 'usd',
    customer: o.customerId,
    customer_details: { email: o.email ?? null },
    expires_at: created + 24 * 3600,
    invoice: o.mode === 'subscription' ? fakeStripeId('in') : null,
    livemode: false,
    metadata: o.metadata,
    mode: o.mode,
    payment_intent: o.paymentIntent ?? null,
    payment_status: o.paymentStatus,
    status: 'complete',
    subscription: o.subscription ?? null,
    success_url: null,
    url: null,
  };
}

/** A subscription object as Stripe puts it in events; `metadata.userId` as billing sets it through subscription_data. */
export function subscriptionObject(o: {
  subscriptionId: string;
  customerId: string;
  userId?: string;
  status: string;
  canceledAt?: number | null;
  created?: number;
}): Json {
  return {
    id: o.subscriptionId,
    object: 'subscription',
    cancel_at_period_end: false,
    canceled_at: o.canceledAt ?? null,
    created: o.created ?? now(),
    customer: o.customerId,
    ended_at: o.status === 'canceled' ? (o.canceledAt ?? now()) : null,
    items: { object: 'list', data: [] },
    livemode: false,
    metadata: o.userId ? { userId: o.userId } : {},
    status: o.status,
  };
}

/** The event's body exactly as Stripe delivers it (pretty-printed JSON); sign this very string. */
export const stripeEventPayload = (event: StripeEventJson): string => JSON.stringify(event, null, 2);

/**
 * The Stripe-Signature header for `payload` signed with a webhook secret, exactly as Stripe signs it
 * (`t=<unix seconds>,v1=<HMAC-SHA256 of "t.payload">`, the stripe SDK's generateTestHeaderString).
 * `timestamp` (Unix seconds) defaults to now; an old one makes a stale delivery.
 */
export function signStripePayload(payload: string, secret: string, timestamp?: number): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp !== undefined && { timestamp }) });
}

/** An event ready to POST to a webhook endpoint: its body and the Stripe-Signature header for it. */
export function signedStripeEvent(event: StripeEventJson, secret: string, timestamp?: number): { payload: string; signature: string } {
  const payload = stripeEventPayload(event);
  return { payload, signature: signStripePayload(payload, secret, timestamp) };
}
