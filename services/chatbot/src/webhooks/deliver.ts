// One attempt at a delivery (queue parley.webhook-deliveries): POST the payload to the endpoint,
// signed the Standard Webhooks way (webhook-id: the delivery's id, the same on every attempt;
// webhook-timestamp: this attempt's second; webhook-signature: "v1,<HMAC-SHA256>" by the
// standardwebhooks library), through the address guard, within the attempt's deadline. A 2xx answer
// is a success. Anything else fails the attempt, a redirect included: redirects are not followed
// (an endpoint answers where it was registered). The outcome is recorded on the delivery (status,
// attempts, answer's status, duration, the start of its body, the error), and the attempt joins the
// delivery's attempt log, which keeps the last ATTEMPTS_KEPT (a delivery is retried for a day and may
// be redelivered: the log stays bounded while `attempts` counts them all). A failed attempt that is
// not the last is thrown again so the queue retries it with exponential backoff; the last leaves the
// delivery failed. An endpoint whose attempts have all failed for DeliverySettings.disableAfterMs is
// disabled, and `endpointDisabled` tells its owners.
import { Webhook } from 'standardwebhooks';
import type { WebhookDelivery, WebhookEndpoint } from '../generated/prisma/client.ts';
import { guardedAgent, refusedByGuard } from '@parley/common/outbound/guard.ts';
import { undici } from '@parley/common/outbound/undici.ts';
import { refreshSubscriptions } from './endpoints.ts';
import type { WebhookDeps } from './webhook-deps.ts';

export const USER_AGENT = 'Parley-Webhooks/1.0';
/** The start of an answer's body kept in the log. */
export const EXCERPT_CHARS = 500;
const READ_AT_MOST_BYTES = 4096;
/** Attempts kept per delivery in its attempt log: a whole day of retries (12) and a few redeliveries. */
export const ATTEMPTS_KEPT = 20;

export const DELIVERY_ERRORS = {
  httpStatus: (status: number) => `HTTP ${status}`,
  redirect: (status: number) => `HTTP ${status}: redirects are not followed`,
  addressNotAllowed: 'This address is not allowed',
  timeout: 'The endpoint took too long to answer',
  connection: 'The endpoint could not be reached',
  endpointDisabled: 'The endpoint is disabled',
};

export interface EndpointDisabledNotice {
  endpointId: string;
  ownerId: string;
  url: string;
  disabledAt: Date;
  lastError: string;
}

export interface DeliverDeps extends WebhookDeps {
  /** Publishes WebhookEndpointDisabled (auth mails the owners). */
  endpointDisabled: (notice: EndpointDisabledNotice) => Promise<void>;
  now?: () => Date;
}

export interface AttemptRequest {
  deliveryId: string;
  round: number;
  /** 1 for the first attempt of this round. */
  attempt: number;
  /** Attempts this round may take (the last one failing leaves the delivery failed). */
  maxAttempts: number;
}

export type AttemptOutcome = 'succeeded' | 'retry' | 'failed' | 'skipped';

/** A failed attempt the queue should retry. */
export class DeliveryFailed extends Error {}

interface Answer {
  status: number;
  durationMs: number;
  excerpt: string;
  error: string;
}

export async function attemptDelivery(deps: DeliverDeps, req: AttemptRequest): Promise<AttemptOutcome> {
  const delivery = await deps.db.webhookDelivery.findUnique({ where: { id: req.deliveryId }, include: { endpoint: true } });
  // Gone with its endpoint, redelivered since (a later round), or already done.
  if (!delivery || delivery.round !== req.round || delivery.status !== 'pending') return 'skipped';
  const { endpoint } = delivery;
  // An event's delivery waits for nothing once its endpoint is disabled; tests and redeliveries are the owner's asks.
  if (!endpoint.enabled && !delivery.test && delivery.round === 0) {
    await deps.db.webhookDelivery.update({
      where: { id: delivery.id },
      data: { status: 'failed', error: DELIVERY_ERRORS.endpointDisabled },
    });
    return 'skipped';
  }
  const now = deps.now ?? (() => new Date());
  const answer = await post(deps, endpoint, delivery, now());
  const at = now();
  const ok = answer.error === '';
  const last = req.attempt >= req.maxAttempts;
  await deps.db.webhookDelivery.update({
    where: { id: delivery.id },
    data: {
      status: ok ? 'succeeded' : last ? 'failed' : 'pending',
      attempts: { increment: 1 },
      responseStatus: answer.status,
      durationMs: answer.durationMs,
      responseExcerpt: answer.excerpt,
      error: answer.error,
      lastAttemptAt: at,
      attemptLog: { create: { attemptedAt: at, responseStatus: answer.status, durationMs: answer.durationMs, error: answer.error } },
    },
  });
  // Only a delivery past the cap pays for the trim.
  if (delivery.attempts + 1 > ATTEMPTS_KEPT) await trimAttemptLog(deps, delivery.id);
  if (ok) {
    if (endpoint.failingSince) await deps.db.webhookEndpoint.updateMany({ where: { id: endpoint.id }, data: { failingSince: null } });
    return 'succeeded';
  }
  const disabled = await recordFailure(deps, endpoint, at, answer.error);
  if (disabled && !delivery.test) {
    await deps.db.webhookDelivery.update({ where: { id: delivery.id }, data: { status: 'failed' } });
    return 'failed';
  }
  if (last) return 'failed';
  throw new DeliveryFailed(answer.error);
}

/** Drops the delivery's attempts older than its last ATTEMPTS_KEPT. */
async function trimAttemptLog(deps: DeliverDeps, deliveryId: string): Promise<void> {
  await deps.db.$executeRaw`
    DELETE FROM "WebhookAttempt"
     WHERE "deliveryId" = ${deliveryId}
       AND "id" <= (SELECT "id" FROM "WebhookAttempt" WHERE "deliveryId" = ${deliveryId} ORDER BY "id" DESC OFFSET ${ATTEMPTS_KEPT} LIMIT 1)`;
}

/** Starts or continues the endpoint's failure streak; disables it after disableAfterMs. Returns whether it is now disabled. */
async function recordFailure(deps: DeliverDeps, endpoint: WebhookEndpoint, at: Date, lastError: string): Promise<boolean> {
  const since = endpoint.failingSince ?? at;
  if (!endpoint.failingSince)
    await deps.db.webhookEndpoint.updateMany({ where: { id: endpoint.id, failingSince: null }, data: { failingSince: at } });
  if (!endpoint.enabled || at.getTime() - since.getTime() < deps.settings.disableAfterMs) return !endpoint.enabled;
  const { count } = await deps.db.webhookEndpoint.updateMany({
    where: { id: endpoint.id, enabled: true },
    data: { enabled: false, disabledReason: `Deliveries failed since ${since.toISOString()} (last: ${lastError})` },
  });
  if (count === 0) return true; // another attempt disabled it first, and told the owners
  await refreshSubscriptions(deps, endpoint.ownerId);
  deps.logger.warn({ endpointId: endpoint.id, ownerId: endpoint.ownerId, since }, 'webhook endpoint disabled after failing deliveries');
  try {
    await deps.endpointDisabled({ endpointId: endpoint.id, ownerId: endpoint.ownerId, url: endpoint.url, disabledAt: at, lastError });
  } catch (err) {
    // The endpoint stays disabled (its owners see it on the Developers page); only the mail is missed.
    deps.logger.error(
      { endpointId: endpoint.id, ownerId: endpoint.ownerId, err: (err as Error).message },
      'could not announce a disabled webhook endpoint',
    );
  }
  return true;
}

async function post(deps: DeliverDeps, endpoint: WebhookEndpoint, delivery: WebhookDelivery, at: Date): Promise<Answer> {
  const signature = new Webhook(endpoint.secret).sign(delivery.id, at, delivery.payload);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const deadline = AbortSignal.timeout(deps.settings.timeoutMs);
  try {
    const res = await undici().request(endpoint.url, {
      dispatcher: guardedAgent(deps.settings.policy ?? deps.settings.allowPrivate),
      method: 'POST',
      signal: deadline,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': delivery.id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: delivery.payload,
    });
    const excerpt = await readExcerpt(res.body);
    const status = res.statusCode;
    const error =
      status >= 200 && status < 300
        ? ''
        : status >= 300 && status < 400
          ? DELIVERY_ERRORS.redirect(status)
          : DELIVERY_ERRORS.httpStatus(status);
    return { status, durationMs: elapsed(), excerpt, error };
  } catch (err) {
    const error = refusedByGuard(err)
      ? DELIVERY_ERRORS.addressNotAllowed
      : deadline.aborted
        ? DELIVERY_ERRORS.timeout
        : DELIVERY_ERRORS.connection;
    return { status: 0, durationMs: elapsed(), excerpt: '', error };
  }
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= READ_AT_MOST_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS);
}
