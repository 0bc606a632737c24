// Builds the chatbot service from its configuration: database, Redis, the billing client, the
// ChatbotDeleted and knowledge-ingest producers, embeddings, the ChatbotInteractionsCounted,
// ChatbotInteraction, AccountDeleted and knowledge-ingest workers (with the ingest relay and the website re-sync), the
// webhook fan-out and delivery workers and the Express app.
// main.ts runs it; tests (the chatbot service's and other packages') start it in-process the same way.
import { fileURLToPath } from 'node:url';
import type { Client } from '@connectrpc/connect';
import type { Worker } from 'bullmq';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ChatbotDeletedSchema } from '@parley/proto/parley/events/v1/chatbot_deleted_pb.js';
import { poolShare, prismaAdapter } from '@parley/common/database.ts';
import { createServiceApp, dataReadiness } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import { publishWebhookRetentionSwept, startWebhookRetentionSweep } from './webhooks/webhook-retention.ts';
import { ChatbotChangedSchema } from '@parley/proto/parley/events/v1/quality_pb.js';
import { createRedis } from '@parley/common/redis.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import type { ServiceParts } from '@parley/common/service.ts';
import { loadCatalogue } from '@parley/common/models/catalogue.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { publishChatbotDeleted } from './chatbots/chatbot-deleted.publisher.ts';
import { billingPlanLookup } from './chatbots/owner-plan.ts';
import type { ChatbotConfig } from './config.ts';
import { chatbotPermissions, webhookPermissions } from './permissions.ts';
import { addCountedInteractions } from './interactions/add-counted-interactions.ts';
import { startChatbotInteractionWorker } from './interactions/chatbot-interaction.job.ts';
import { startChatbotInteractionsCountedWorker } from './interactions/chatbot-interactions-counted.job.ts';
import { startPruningProcessedInteractions } from './interactions/prune-processed-interactions.ts';
import { startChatbotDeletedRelay } from './chatbots/chatbot-deleted.outbox.ts';
import { startAccountDeletedWorker } from './account-deleted.job.ts';
import { deleteOwnerChatbots } from './delete-owner-chatbots.ts';
import { recordInteraction } from './interactions/record-interaction.ts';
import { knowledgeEmbeddings, type KnowledgeEmbeddings } from './knowledge/embeddings/knowledge-embeddings.ts';
import { startAutoSync } from './knowledge/ingest/auto-sync.ts';
import { defaultSources, ingestEntry, type IngestDeps } from './knowledge/ingest/ingest-entry.ts';
import { startIngestRelay } from './knowledge/ingest/ingest-relay.ts';
import { ingestProducer } from './knowledge/ingest/ingest-requests.ts';
import { startKnowledgeIngestWorker } from './knowledge/ingest/knowledge-ingest.job.ts';
import { knowledgeTextCache } from './knowledge/knowledge-text-cache.ts';
import { SEARCH_SESSION_SETTINGS } from './knowledge/retrieve.ts';
import { redisPublicRevision } from './core/public-revision.ts';
import { chatbotRoutes, type ChatbotRpcDeps } from './rpc.ts';
import { webhookPublisher } from '@parley/common/webhook-publisher.ts';
import { entryFinishedWebhooks } from './entry-webhooks.ts';
import { attemptDelivery, type DeliverDeps } from './webhooks/deliver.ts';
import { deleteOwnerEndpoints, startSubscriptionsCheck } from './webhooks/endpoints.ts';
import { fanOutEvents } from './webhooks/fan-out.ts';
import type { WebhookDeps } from './webhooks/webhook-deps.ts';
import { outboundPolicy } from '@parley/common/outbound/guard.ts';
import {
  deliveryQueue,
  endpointDisabledPublisher,
  startWebhookDeliveryWorker,
  startWebhookEventsWorker,
} from './webhooks/webhook-queues.ts';

/** Connections for knowledge searches, besides the main pool: a share of DATABASE_POOL_MAX (5 at the default 10). */
const SEARCH_POOL_SHARE = 0.5;

export const MIGRATIONS_DIR = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export interface ChatbotServiceParts extends ServiceParts {
  prisma: PrismaClient;
  deps: ChatbotRpcDeps;
  /** The ChatbotInteractionsCounted worker (the chatbot's interactions, per analytics batch), when workers were started. */
  interactionsCountedWorker?: Worker;
  /** The ChatbotInteraction worker (per message, for the jobs queued before ADR 23), when workers were started. */
  chatbotInteractionWorker?: Worker;
  /** The AccountDeleted worker (deletes a deleted owner's chatbots), when workers were started. */
  accountDeletedWorker?: Worker;
  /** The knowledge-ingest worker (parses files, fetches pages), when workers were started. */
  knowledgeIngestWorker?: Worker;
  /** What the ingest worker runs, for tests that drive a job by hand. */
  ingestDeps: IngestDeps;
  /** Retrieval and the embed worker (knowledge/embeddings/knowledge-embeddings.ts). */
  embeddings: KnowledgeEmbeddings;
  /** The webhook fan-out and delivery workers (webhooks/), when workers were started. */
  webhookEventsWorker?: Worker;
  webhookDeliveryWorker?: Worker;
  /** What the delivery worker runs, for tests. */
  deliverDeps: DeliverDeps;
}

/** Room for the largest upload in an AddFileEntry call, besides the rest of the message. */
const UPLOAD_MESSAGE_OVERHEAD_BYTES = 1024 * 1024;

export async function createChatbotService(
  config: ChatbotConfig,
  opts: { logger: Logger; billing?: Client<typeof BillingService>; workers?: boolean },
): Promise<ChatbotServiceParts> {
  const { logger } = opts;
  const prisma = new PrismaClient({
    adapter: prismaAdapter({ databaseUrl: config.DATABASE_URL, schema: config.CHATBOT_DB_SCHEMA, poolSize: config.DATABASE_POOL_MAX }),
  });
  // Knowledge searches run on sessions of their own, set up for them once (see retrieve.ts).
  const search = new PrismaClient({
    adapter: prismaAdapter({
      databaseUrl: config.DATABASE_URL,
      schema: config.CHATBOT_DB_SCHEMA,
      poolSize: poolShare(config.DATABASE_POOL_MAX, SEARCH_POOL_SHARE),
      settings: SEARCH_SESSION_SETTINGS,
    }),
  });
  const redis = createRedis(config.REDIS_URL);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  const chatbotDeleted = createProducer(redis, QUEUES.chatbotDeleted, ChatbotDeletedSchema, { prefix: config.QUEUE_PREFIX });
  const knowledgeIngest = ingestProducer(redis, config.QUEUE_PREFIX);
  const workers = opts.workers !== false;
  const embeddings = knowledgeEmbeddings(config, { db: prisma, search, redis, logger, workers });
  const chatbotChanged = createProducer(redis, QUEUES.chatbotChanged, ChatbotChangedSchema, { prefix: config.QUEUE_PREFIX });
  const retentionSwept = createProducer(redis, QUEUES.retentionSwept, RetentionSweptSchema, { prefix: config.QUEUE_PREFIX });
  const publicChanged = redisPublicRevision(redis, { prefix: config.QUEUE_PREFIX, logger, changed: chatbotChanged });
  const billing =
    opts.billing ??
    createServiceClient(BillingService, config.BILLING_URL, {
      timeoutMs: config.RPC_TIMEOUT_MS,
      resolveIntervalMs: config.SERVICE_RESOLVE_INTERVAL_MS,
      credentials: { caller: 'chatbot', secret: config.SERVICE_SECRET },
    });

  const deliveries = deliveryQueue(redis, config.QUEUE_PREFIX, {
    attempts: config.WEBHOOK_MAX_ATTEMPTS,
    backoffMs: config.WEBHOOK_RETRY_BASE_MS,
  });
  const endpointDisabled = endpointDisabledPublisher(redis, config.QUEUE_PREFIX);
  const webhookEvents = webhookPublisher(redis, { prefix: config.QUEUE_PREFIX, logger });
  const policy = outboundPolicy({
    allowPrivate: config.KNOWLEDGE_URL_ALLOW_PRIVATE === '1',
    allowList: config.OUTBOUND_ALLOW,
    nodeEnv: process.env.NODE_ENV,
  });
  const webhooks: WebhookDeps = {
    db: prisma,
    redis,
    prefix: config.QUEUE_PREFIX,
    logger,
    settings: {
      allowPrivate: config.KNOWLEDGE_URL_ALLOW_PRIVATE === '1',
      policy,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    },
    requestDelivery: deliveries.request,
  };
  const deliverDeps: DeliverDeps = { ...webhooks, endpointDisabled: endpointDisabled.publish };

  const deps: ChatbotRpcDeps = {
    webhooks,
    actions: { db: prisma, policy, secretKey: config.ACTION_SECRET_ENCRYPTION_KEY, publicChanged },
    db: prisma,
    search,
    logger,
    ownerPlan: billingPlanLookup(billing, logger),
    catalogue: loadCatalogue({ MODEL_CATALOGUE_FILE: config.MODEL_CATALOGUE_FILE }),
    publishChatbotDeleted: (chatbot) => publishChatbotDeleted(chatbotDeleted, chatbot),
    mediaDir: config.MEDIA_DIR,
    maxPictureBytes: config.MAX_PICTURE_BYTES,
    maxEntryChars: config.MAX_ENTRY_CHARS,
    maxKnowledgeChars: config.MAX_KNOWLEDGE_CHARS_PER_BOT,
    knowledgeCache: knowledgeTextCache(),
    publicChanged,
    maxUploadBytes: config.MAX_UPLOAD_BYTES,
    publishIngest: knowledgeIngest.publish,
    retrieveChunks: embeddings.retrieve,
    entryIndexed: embeddings.entryIndexed,
  };
  const ingestDeps: IngestDeps = {
    db: prisma,
    logger,
    sources: defaultSources,
    maxKnowledgeChars: config.MAX_KNOWLEDGE_CHARS_PER_BOT,
    maxDocumentChars: config.MAX_DOCUMENT_CHARS,
    parseBounds: {
      timeoutMs: config.KNOWLEDGE_PARSE_TIMEOUT_MS,
      memoryMb: config.KNOWLEDGE_PARSE_MEMORY_MB,
      maxChars: config.MAX_DOCUMENT_CHARS,
    },
    fetchOptions: {
      allowPrivate: config.KNOWLEDGE_URL_ALLOW_PRIVATE === '1',
      policy,
      timeoutMs: config.KNOWLEDGE_FETCH_TIMEOUT_MS,
      maxBytes: config.KNOWLEDGE_FETCH_MAX_BYTES,
    },
    publicChanged,
    entryIndexed: embeddings.entryIndexed,
    publishIngest: knowledgeIngest.publish,
    entryFinished: entryFinishedWebhooks({ db: prisma, webhooks: webhookEvents, logger }),
  };

  // The chatbot's interactions, reported by the chat service's analytics worker per chatbot and batch.
  const interactionsCountedWorker =
    opts.workers === false
      ? undefined
      : startChatbotInteractionsCountedWorker({
          redis,
          logger,
          prefix: config.QUEUE_PREFIX,
          addCountedInteractions: (input) => addCountedInteractions({ db: prisma }, input),
        });
  // Kept after ADR 23: the per-message jobs a chat service queued before its upgrade are still counted.
  const chatbotInteractionWorker =
    opts.workers === false
      ? undefined
      : startChatbotInteractionWorker({
          redis,
          logger,
          prefix: config.QUEUE_PREFIX,
          recordInteraction: (input) => recordInteraction({ db: prisma }, input),
        });
  const accountDeletedWorker =
    opts.workers === false
      ? undefined
      : startAccountDeletedWorker({
          redis,
          logger,
          prefix: config.QUEUE_PREFIX,
          deleteOwnerChatbots: async (input) => {
            const deleted = await deleteOwnerChatbots(deps, input);
            await deleteOwnerEndpoints(webhooks, input.ownerId);
            return deleted;
          },
        });

  const knowledgeIngestWorker = workers
    ? startKnowledgeIngestWorker({
        redis,
        logger,
        prefix: config.QUEUE_PREFIX,
        concurrency: config.KNOWLEDGE_INGEST_CONCURRENCY,
        ingestEntry: (request, attempt) => ingestEntry(ingestDeps, request, attempt),
      })
    : undefined;

  // Webhooks: events fanned out into deliveries, and each delivery's attempts (ADR 32).
  const webhookEventsWorker = workers
    ? startWebhookEventsWorker({ redis, logger, prefix: config.QUEUE_PREFIX, fanOut: (events) => fanOutEvents(webhooks, events) })
    : undefined;
  const webhookDeliveryWorker = workers
    ? startWebhookDeliveryWorker({
        redis,
        logger,
        prefix: config.QUEUE_PREFIX,
        concurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
        attempt: (req) => attemptDelivery(deliverDeps, req),
      })
    : undefined;

  // With the workers: a process that counts interactions also forgets the old ones, announces
  // deletions its owner's call could not, queues entries whose job was lost and re-syncs websites.
  const stopPruning = opts.workers === false ? undefined : startPruningProcessedInteractions(prisma, logger);
  const stopRelay = opts.workers === false ? undefined : startChatbotDeletedRelay(prisma, deps.publishChatbotDeleted, logger);
  const stopIngestRelay = workers
    ? startIngestRelay({ db: prisma, logger, publishIngest: knowledgeIngest.publish, jobState: knowledgeIngest.jobState })
    : undefined;
  const stopSubscriptionsCheck = workers ? startSubscriptionsCheck(webhooks) : undefined;
  // Deliveries past a workspace's window are deleted every hour (docs/adr/0059-retention-in-every-service.md).
  const stopWebhookRetention = workers
    ? startWebhookRetentionSweep(prisma, logger, (ownerId, n) => publishWebhookRetentionSwept(retentionSwept, ownerId, n, logger))
    : undefined;
  const stopAutoSync = workers
    ? startAutoSync({ db: prisma, logger, publishIngest: knowledgeIngest.publish, intervalMs: config.KNOWLEDGE_SYNC_INTERVAL_MS })
    : undefined;

  const app = createServiceApp({
    logger,
    trust: {
      secret: config.SERVICE_SECRET,
      previousSecret: config.SERVICE_SECRET_PREVIOUS,
      callers: ['gateway', 'chat'],
      permissions: new Map([...chatbotPermissions, ...webhookPermissions]),
    },
    routes: chatbotRoutes(deps),
    readiness: dataReadiness(prisma, redis),
    readMaxBytes: config.MAX_UPLOAD_BYTES + UPLOAD_MESSAGE_OVERHEAD_BYTES,
  });

  // No new job and no new sweep; the jobs in hand finish.
  const stopBackground = async () => {
    for (const stop of [stopPruning, stopRelay, stopIngestRelay, stopAutoSync, stopSubscriptionsCheck, stopWebhookRetention]) stop?.();
    await Promise.all([
      knowledgeIngestWorker?.close(),
      interactionsCountedWorker?.close(),
      chatbotInteractionWorker?.close(),
      accountDeletedWorker?.close(),
      webhookEventsWorker?.close(),
      webhookDeliveryWorker?.close(),
      embeddings.stopBackground(),
    ]);
  };

  return {
    app,
    prisma,
    deps,
    interactionsCountedWorker,
    chatbotInteractionWorker,
    accountDeletedWorker,
    knowledgeIngestWorker,
    ingestDeps,
    embeddings,
    webhookEventsWorker,
    webhookDeliveryWorker,
    deliverDeps,
    background: [stopBackground],
    closers: [
      // The workers first: close() waits for the jobs in flight to finish before it resolves.
      stopBackground,
      () => embeddings.close(),
      () => knowledgeIngest.close(),
      () => webhookEvents.close(),
      () => deliveries.close(),
      () => endpointDisabled.close(),
      () => chatbotDeleted.close(),
      () => chatbotChanged.close(),
      () => retentionSwept.close(),
      () => redis.quit(),
      () => prisma.$disconnect(),
      () => search.$disconnect(),
    ],
  };
}
