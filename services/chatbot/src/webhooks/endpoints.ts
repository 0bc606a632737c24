// A workspace's webhook endpoints: create (with a secret shown once), list, change, delete, roll the
// secret. Every change also rewrites the owner's line of the subscriptions hash (what its enabled
// endpoints subscribe to), which publishers read to skip events nobody receives.
import { randomBytes } from 'node:crypto';
import { failedPrecondition, notFound } from '@parley/common/rpc-errors.ts';
import type { Logger } from '@parley/common/logger.ts';
import { runPeriodically } from '@parley/common/periodic.ts';
import { setWebhookSubscriptions, webhookSubscriptionsKept } from '@parley/common/webhook-subscriptions.ts';
import { WEBHOOK_EVENT_TYPES } from '@parley/common/webhook-events.ts';
import type { PrismaClient, WebhookEndpoint } from '../generated/prisma/client.ts';
import { parseOwnerId } from '../core/chatbot-input.ts';
import {
  ENDPOINT_NOT_FOUND,
  MAX_ENDPOINTS,
  TOO_MANY_ENDPOINTS,
  parseEndpointId,
  parseEndpointUrl,
  parseEventTypes,
} from './endpoint-input.ts';
import type { WebhookDeps } from './webhook-deps.ts';

/** A Standard Webhooks secret: "whsec_" and the base64 of 24 random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The endpoint of this owner, or NOT_FOUND (another owner's is answered the same). */
export async function findOwnedEndpoint(db: PrismaClient, input: { ownerId: string; endpointId: string }): Promise<WebhookEndpoint> {
  const ownerId = parseOwnerId(input.ownerId);
  const id = parseEndpointId(input.endpointId);
  const endpoint = await db.webhookEndpoint.findFirst({ where: { id, ownerId } });
  if (!endpoint) throw notFound(ENDPOINT_NOT_FOUND);
  return endpoint;
}

/** Rewrites the owner's subscribed types from its enabled endpoints. */
export async function refreshSubscriptions(deps: Pick<WebhookDeps, 'db' | 'redis' | 'prefix'>, ownerId: string): Promise<void> {
  const endpoints = await deps.db.webhookEndpoint.findMany({ where: { ownerId, enabled: true }, select: { events: true } });
  const types = new Set(endpoints.flatMap((e) => e.events));
  await setWebhookSubscriptions(
    deps.redis,
    deps.prefix,
    ownerId,
    WEBHOOK_EVENT_TYPES.filter((t) => types.has(t)),
  );
}

export async function createEndpoint(
  deps: WebhookDeps,
  input: { ownerId: string; url: string; events: readonly string[] },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const ownerId = parseOwnerId(input.ownerId);
  const events = parseEventTypes(input.events);
  const url = await parseEndpointUrl(input.url, { allowPrivate: deps.settings.allowPrivate, allow: deps.settings.policy?.allow });
  if ((await deps.db.webhookEndpoint.count({ where: { ownerId } })) >= MAX_ENDPOINTS)
    throw failedPrecondition(TOO_MANY_ENDPOINTS(MAX_ENDPOINTS));
  const secret = newSecret();
  const endpoint = await deps.db.webhookEndpoint.create({ data: { ownerId, url, events, secret } });
  await refreshSubscriptions(deps, ownerId);
  return { endpoint, secret };
}

export async function listEndpoints(db: PrismaClient, ownerId: string): Promise<WebhookEndpoint[]> {
  return db.webhookEndpoint.findMany({ where: { ownerId: parseOwnerId(ownerId) }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

export interface EndpointChange {
  ownerId: string;
  endpointId: string;
  url?: string;
  enabled?: boolean;
  events?: readonly string[];
}

/** Changes what is given; enabling clears the failure streak and Parley's reason for disabling it. */
export async function updateEndpoint(deps: WebhookDeps, input: EndpointChange): Promise<WebhookEndpoint> {
  const endpoint = await findOwnedEndpoint(deps.db, input);
  const events = input.events === undefined ? undefined : parseEventTypes(input.events);
  const url =
    input.url === undefined
      ? undefined
      : await parseEndpointUrl(input.url, { allowPrivate: deps.settings.allowPrivate, allow: deps.settings.policy?.allow });
  const enabling = input.enabled === true && !endpoint.enabled;
  const updated = await deps.db.webhookEndpoint.update({
    where: { id: endpoint.id },
    data: {
      ...(url === undefined ? {} : { url }),
      ...(events === undefined ? {} : { events }),
      ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
      ...(enabling || input.enabled === false ? { disabledReason: '', failingSince: null } : {}),
    },
  });
  await refreshSubscriptions(deps, updated.ownerId);
  return updated;
}

export async function deleteEndpoint(deps: WebhookDeps, input: { ownerId: string; endpointId: string }): Promise<void> {
  const endpoint = await findOwnedEndpoint(deps.db, input);
  // The deliveries go with it (cascade); their queued attempts find nothing and end.
  await deps.db.webhookEndpoint.deleteMany({ where: { id: endpoint.id } });
  await refreshSubscriptions(deps, endpoint.ownerId);
}

export async function rollSecret(deps: WebhookDeps, input: { ownerId: string; endpointId: string }): Promise<string> {
  const endpoint = await findOwnedEndpoint(deps.db, input);
  const secret = newSecret();
  await deps.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { secret } });
  return secret;
}

/** Every endpoint of a deleted owner (AccountDeleted), and its line of the subscriptions hash. */
export async function deleteOwnerEndpoints(deps: Pick<WebhookDeps, 'db' | 'redis' | 'prefix'>, ownerId: string): Promise<void> {
  await deps.db.webhookEndpoint.deleteMany({ where: { ownerId } });
  await refreshSubscriptions(deps, ownerId);
}

/** How often a worker process checks that Redis still holds the subscriptions hash. */
export const SUBSCRIPTIONS_CHECK_EVERY_MS = 5 * 60_000;

/**
 * Writes every owner's line again when Redis has lost the hash (its revision is missing while
 * endpoints exist): publishers would otherwise skip every event until the next endpoint change.
 * Returns how many owners were written.
 */
export async function restoreSubscriptions(deps: Pick<WebhookDeps, 'db' | 'redis' | 'prefix'>): Promise<number> {
  if (await webhookSubscriptionsKept(deps.redis, deps.prefix)) return 0;
  const owners = await deps.db.webhookEndpoint.findMany({ where: { enabled: true }, distinct: ['ownerId'], select: { ownerId: true } });
  for (const { ownerId } of owners) await refreshSubscriptions(deps, ownerId);
  return owners.length;
}

/** Checks now and every SUBSCRIPTIONS_CHECK_EVERY_MS until the returned function is called. */
export function startSubscriptionsCheck(deps: Pick<WebhookDeps, 'db' | 'redis' | 'prefix'> & { logger: Logger }): () => void {
  return runPeriodically(
    () =>
      restoreSubscriptions(deps).then(
        (owners) => owners > 0 && deps.logger.warn({ owners }, 'webhook subscriptions were missing from Redis: written again'),
        (err: Error) => deps.logger.warn({ err: err.message }, 'checking the webhook subscriptions failed; the next check retries'),
      ),
    { firstAfterMs: 1_000, everyMs: SUBSCRIPTIONS_CHECK_EVERY_MS },
  );
}
