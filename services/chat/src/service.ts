// Builds the chat service from its configuration: database, Redis, the clients of the chatbot and
// billing services, the language model (or offline mode), the event producers, the ChatbotDeleted
// and AccountDeleted workers and the Express app. main.ts runs it; tests (the chat service's and
// other packages') start it in-process the same way. Beyond its schema and Redis it keeps only
// bounded in-process caches that any replica may lose (docs/adr/0014-caches.md), so any number of
// replicas can run side by side.
import { fileURLToPath } from 'node:url';
import type { Worker } from 'bullmq';
import type { Client } from '@connectrpc/connect';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { ActionService } from '@parley/proto/parley/chatbot/v1/actions_pb.js';
import { McpServerService } from '@parley/proto/parley/chatbot/v1/mcp_servers_pb.js';
import { ChatbotInteractionsCountedSchema } from '@parley/proto/parley/events/v1/chatbot_interactions_counted_pb.js';
import { HandoffRequestedSchema, HandoffTimeoutDueSchema } from '@parley/proto/parley/events/v1/handoff_requested_pb.js';
import { chatbotInteractionBatch, usageRecordedBatch } from '@parley/proto/event-batches.ts';
import { mainPool, pgPool, poolShare, prismaAdapter } from '@parley/common/database.ts';
import { createServiceApp, dataReadiness } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { createBatchProducer, createProducer, QUEUES } from '@parley/common/queues.ts';
import { createRedis } from '@parley/common/redis.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import type { ServiceParts } from '@parley/common/service.ts';
import type pg from 'pg';
import { PrismaClient } from './generated/prisma/client.ts';
import { startAnalyticsWorker } from './analytics/analytics-interaction.job.ts';
import { ChannelMessageReceivedSchema, ChannelReplyRequestedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import { answerChannelMessage } from './channels/answer-update.ts';
import { startChannelInboundWorker, startChannelOutboundWorker } from './channels/channel-inbound.job.ts';
import { sendAgentReply } from './channels/send-reply.ts';
import { takeChannelLead } from './leads/channel-lead.ts';
import { slackAppOf } from './channels/slack-install.ts';
import { CHANNEL_INBOUND_RETRIES } from '@parley/common/channel-webhook.ts';
import { requestHandoff } from './handoff/request-handoff.ts';
import type { DeliverDeps } from './channels/deliver.ts';
import { telegramApi } from './channels/telegram-api.ts';
import { slackApi } from './channels/slack-api.ts';
import { metaApi } from './channels/meta-api.ts';
import { twilioApi } from './channels/twilio-api.ts';
import { emailApi } from './channels/email-api.ts';
import type { EmailSmtpInbound } from './channels/email-smtp.ts';
import { resolve as resolvePath } from 'node:path';
import { verifierCache } from './channels/receive-update.ts';
import { removeChatbotChannels } from './channels/connections.ts';
import {
  announceInteractionsCounted,
  interactionsCountedPublisher,
  startChatbotInteractionsCountedRelay,
} from './analytics/chatbot-interactions-counted.outbox.ts';
import { startPruningProcessedAnalyticsEvents } from './analytics/prune-processed-analytics-events.ts';
import { publishRetentionSwept, startRetentionSweep } from './conversations/retention.ts';
import { RetentionSweptSchema } from '@parley/proto/parley/events/v1/retention_swept_pb.js';
import { recordAnalyticsBatch } from './analytics/record-analytics.ts';
import { analyticsWebhookEvents } from './analytics/webhook-events.ts';
import { webhookPublisher } from '@parley/common/webhook-publisher.ts';
import { startAccountDeletedWorker } from './conversations/account-deleted.job.ts';
import { startChatbotDeletedWorker } from './conversations/chatbot-deleted.job.ts';
import { deleteChatbotConversations } from './conversations/delete-conversations.ts';
import { deleteOwnerConversations } from './conversations/delete-owner-conversations.ts';
import { redisAdmission } from './core/admission.ts';
import { chatbotContext } from './public-chat/chatbot-context.ts';
import { EXCHANGE_POOL_SHARE, EXCHANGE_SESSION_SETTINGS } from './public-chat/conversation-store.ts';
import { creditGate } from './public-chat/credit-hold.ts';
import { redisDailyMessageCounter } from './public-chat/daily-limits.ts';
import { historySource } from './public-chat/history-source.ts';
import { OFFLINE_PASSAGES } from './public-chat/offline-answer.ts';
import { redisPendingActions } from './public-chat/pending-actions.ts';
import { altchaProofOfWork } from './public-chat/proof-of-work.ts';
import { recorder } from './public-chat/recorder.ts';
import { redisRecentTurns } from './public-chat/recent-turns.ts';
import { sessionIds } from './core/session-id.ts';
import { chatbotInteractionPublisher, publishUsageRecorded, visitorHash, type Usage } from './usage/publishers.ts';
import { reconcileHolds, startReconcilingHolds } from './usage/reconcile-holds.ts';
import { DEV_ALTCHA_HMAC_KEY, DEV_PROVIDER_KEY_ENCRYPTION_KEY, DEV_SESSION_SECRET, type ChatConfig } from './config.ts';
import { chatPermissions } from './permissions.ts';
import { redisHandoffMirror } from './handoff/announce.ts';
import type { HandoffDeps } from './handoff/handoff-deps.ts';
import { liveHub, livePublisher } from './handoff/live-hub.ts';
import { visitorHandoff } from './handoff/visitor-message.ts';
import { handoffTimedOut, timeoutOf } from './handoff/handoff-timeout.ts';
import { startHandoffTimeoutWorker } from './handoff/handoff-timeout.job.ts';
import { SUMMARY_MAX_TOKENS } from './handoff/summarize-conversation.ts';
import { chatRoutes, type ChatRpcDeps } from './rpc.ts';
import { runDue, scheduleAutomaticRun, type RunDeps } from './quality/runs.ts';
import { startQualityWorkers } from './quality/test-run.job.ts';
import { TestRunDueSchema, TestRunRegressedSchema } from '@parley/proto/parley/events/v1/quality_pb.js';
import { loadCatalogue } from '@parley/common/models/catalogue.ts';
import { chatModels } from './models/chat-models.ts';
import { modelRouter } from './models/model-router.ts';
import { providerEndpoints, withOwnKeys } from './models/providers.ts';
import { ownKeyRouters } from './provider-keys/own-key-routers.ts';
import { providerKeyCheck } from './provider-keys/provider-key-check.ts';
import { providerKeyChangePublisher, watchProviderKeyChanges } from './provider-keys/provider-key-changes.ts';
import { ownKeysOf, type ProviderKeyDeps } from './provider-keys/provider-keys.ts';
import { identitySecrets } from './public-chat/visitor-identity.ts';

/** The most events of one job (the events of EVENT_BATCH_WAIT_MS, config.ts, go as one job up to this many). */
export const EVENT_BATCH_MAX = 100;
/** The export pool's size as a share of DATABASE_POOL_MAX: 2 at the default 10 (one export reads on one connection). */
const EXPORT_POOL_SHARE = 0.2;

export const MIGRATIONS_DIR = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

export interface ChatServiceParts extends ServiceParts {
  prisma: PrismaClient;
  /** The exchange pool (ADR 0007): answered exchanges only. */
  exchanges: pg.Pool;
  /** The export's reads (pg alone: Prisma holds several copies of each page). */
  exportDb: pg.Pool;
  deps: ChatRpcDeps;
  /** The ChatbotDeleted worker, when workers were started. */
  chatbotDeletedWorker?: Worker;
  /** The AccountDeleted worker (removes a deleted owner's conversations), when workers were started. */
  accountDeletedWorker?: Worker;
  /** The analytics worker (counts answered messages in the chatbot's figures and question groups), when workers were started. */
  analyticsWorker?: Worker;
  /** The handoff-timeout worker (a wait nobody answered goes back to the bot), when workers were started. */
  handoffTimeoutWorker?: Worker;
  /** The quality loop's workers (ChatbotChanged, test runs), when workers were started. */
  qualityWorkers: Worker[];
  /** The channel worker (answers the messaging channels' queued messages, ADR 44), when workers were started. */
  channelInboundWorker?: Worker;
  /** Email's local SMTP server (development), when EMAIL_SMTP_INBOUND_PORT is set. */
  emailSmtpInbound?: EmailSmtpInbound;
  /** Publishes the answers' UsageRecorded and ChatbotInteraction events gathered so far (ADR 29), and waits for them. */
  flushEvents(): Promise<void>;
  /** One round of settling expired holds from the stored exchanges, as the workers run it every RECONCILE_HOLDS_MS (ADR 37). */
  reconcileHolds(): Promise<{ settled: number; released: number }>;
}

export async function createChatService(
  config: ChatConfig,
  opts: {
    logger: Logger;
    /** false: no queue workers (for tests that only need the RPC side). */
    workers?: boolean;
    chatbots?: Client<typeof ChatbotService>;
    /** The chatbot service's ActionService (the tool loop's RunAction); tests may pass their own. */
    actions?: Client<typeof ActionService>;
    billing?: Client<typeof BillingService>;
    /** null: offline mode whatever provider keys are set. */
    model?: null;
  },
): Promise<ChatServiceParts> {
  const { logger } = opts;
  // One pool: Prisma's, and the channel worker's statements on a channel message's path, sent through the driver.
  const pool = mainPool({ databaseUrl: config.DATABASE_URL, schema: config.CHAT_DB_SCHEMA, poolSize: config.DATABASE_POOL_MAX });
  const prisma = new PrismaClient({ adapter: prismaAdapter({ pool, schema: config.CHAT_DB_SCHEMA }) });
  // Answered exchanges are stored on sessions of their own that do not wait for the WAL flush (see
  // EXCHANGE_SESSION_SETTINGS); every other write of the service keeps the main pool's durability.
  const exchanges = pgPool({
    databaseUrl: config.DATABASE_URL,
    schema: config.CHAT_DB_SCHEMA,
    poolSize: poolShare(config.DATABASE_POOL_MAX, EXCHANGE_POOL_SHARE),
    settings: EXCHANGE_SESSION_SETTINGS,
  });
  // An idle session the server ended (a restart) is dropped from the pool, as Prisma's adapter does.
  exchanges.on('error', (err) => logger.warn({ err: err.message }, 'exchange pool: idle session failed'));
  const redis = createRedis(config.REDIS_URL);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
  // What answers leave for billing and analytics, gathered for EVENT_BATCH_WAIT_MS into one job per queue
  // (ADR 29, ADR 51). The answer never waits for them (the recorder does not await the publish);
  // billing settles and analytics counts this much later. At 250 answers a second a batch holds about 25.
  const batching = { prefix: config.QUEUE_PREFIX, waitMs: config.EVENT_BATCH_WAIT_MS, maxEvents: EVENT_BATCH_MAX, logger };
  const usageRecorded = createBatchProducer(redis, QUEUES.usageRecorded, usageRecordedBatch, batching);
  const analyticsInteraction = createBatchProducer(redis, QUEUES.chatbotInteractionAnalytics, chatbotInteractionBatch, batching);
  // The chatbot's interaction counter: one event per chatbot and analytics batch (ADR 23).
  const interactionsCounted = createProducer(redis, QUEUES.chatbotInteractionsCounted, ChatbotInteractionsCountedSchema, {
    prefix: config.QUEUE_PREFIX,
  });
  const publishInteractionsCounted = interactionsCountedPublisher(interactionsCounted);
  // Webhook events of answered messages (from the analytics batches) and ratings, for subscribed owners only (ADR 32).
  const webhooks = webhookPublisher(redis, { prefix: config.QUEUE_PREFIX, logger });
  const announceWebhookEvents = analyticsWebhookEvents(webhooks);
  const rpc = {
    timeoutMs: config.RPC_TIMEOUT_MS,
    resolveIntervalMs: config.SERVICE_RESOLVE_INTERVAL_MS,
    credentials: { caller: 'chat', secret: config.SERVICE_SECRET },
  } as const;
  const chatbots = opts.chatbots ?? createServiceClient(ChatbotService, config.CHATBOT_URL, rpc);
  const billing = opts.billing ?? createServiceClient(BillingService, config.BILLING_URL, rpc);

  // A malformed catalogue stops the service here, naming its file and line.
  const catalogue = loadCatalogue({ MODEL_CATALOGUE_FILE: config.MODEL_CATALOGUE_FILE });
  const endpoints = opts.model === null ? {} : providerEndpoints(config);
  const routerOf = (of: typeof endpoints, configurationWarnings: boolean) =>
    modelRouter({
      catalogue,
      endpoints: of,
      timeoutMs: config.OPENAI_TIMEOUT_MS,
      defaultProviderModel: config.OPENAI_MODEL,
      logger,
      configurationWarnings,
    });
  const router = routerOf(endpoints, true);
  // A workspace's own provider keys (docs/adr/0043-own-provider-keys.md): stored encrypted, its
  // router kept in process and forgotten on every replica when they change.
  const providerKeys: ProviderKeyDeps = {
    db: prisma,
    ciphers: { current: config.PROVIDER_KEY_ENCRYPTION_KEY, previous: config.PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY },
    endpoints,
    check: providerKeyCheck(config.OPENAI_TIMEOUT_MS),
    announce: providerKeyChangePublisher(redis, config.QUEUE_PREFIX, logger),
  };
  const ownRouters = ownKeyRouters({
    load: (ownerId) => ownKeysOf(providerKeys, ownerId),
    routerOf: (keys) => {
      const own = withOwnKeys(endpoints, keys);
      return own ? routerOf(own, false) : null;
    },
  });
  const providerKeyWatch = watchProviderKeyChanges(
    redis,
    config.QUEUE_PREFIX,
    { onChange: (ownerId) => ownRouters.forget(ownerId), onGap: () => ownRouters.forgetAll() },
    logger,
  );
  await providerKeyWatch.ready;
  const models = chatModels(
    router,
    {
      maxMessageChars: config.MAX_MESSAGE_CHARS,
      maxOutputTokens: config.MAX_OUTPUT_TOKENS,
      promptKnowledgeChars: config.PROMPT_KNOWLEDGE_CHARS,
      historyChars: config.HISTORY_CHARS,
    },
    logger,
    ownRouters.of,
  );
  const online = router.defaultModel !== null;
  if (!online)
    logger.warn(
      'no provider key is set (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY): chatbots answer in offline mode, quoting their knowledge base',
    );

  if (config.SESSION_SECRET === DEV_SESSION_SECRET)
    logger.warn('SESSION_SECRET is not set: public chat session ids are signed with the development default');
  if (config.PROVIDER_KEY_ENCRYPTION_KEY.toString('base64') === DEV_PROVIDER_KEY_ENCRYPTION_KEY)
    logger.warn("PROVIDER_KEY_ENCRYPTION_KEY is not set: workspaces' own provider keys are encrypted under the development default");
  if (config.ALTCHA_HMAC_KEY === DEV_ALTCHA_HMAC_KEY)
    logger.warn('ALTCHA_HMAC_KEY is not set: proof-of-work challenges are signed with the development default');

  const recentTurns = redisRecentTurns(redis, config.QUEUE_PREFIX);
  const history = historySource({ db: prisma, recentTurns, prefix: config.QUEUE_PREFIX, budgetChars: config.HISTORY_CHARS, logger });
  // A visitor of the daily limits is the visitor analytics counts: one keyed hash of the address.
  const dailyMessages = redisDailyMessageCounter(redis, {
    prefix: config.QUEUE_PREFIX,
    visitorOf: (clientIp) => visitorHash(config.SESSION_SECRET, clientIp),
  });
  const exportDb = pgPool({
    databaseUrl: config.DATABASE_URL,
    schema: config.CHAT_DB_SCHEMA,
    poolSize: poolShare(config.DATABASE_POOL_MAX, EXPORT_POOL_SHARE),
  });
  exportDb.on('error', (err) => logger.warn({ err: err.message }, 'export pool: idle session failed'));
  // Humans in the loop (ADR 34): the status mirror, the live channels (one subscriber connection,
  // opened with the first stream), the wait's deadlines and the agents' notification.
  const handoffMirror = redisHandoffMirror(redis, config.QUEUE_PREFIX);
  const live = livePublisher(redis, config.QUEUE_PREFIX, logger);
  const hub = liveHub(redis, logger);
  const handoffTimeouts = createProducer(redis, QUEUES.handoffTimeout, HandoffTimeoutDueSchema, { prefix: config.QUEUE_PREFIX });
  const handoffRequested = createProducer(redis, QUEUES.handoffRequested, HandoffRequestedSchema, { prefix: config.QUEUE_PREFIX });
  const retentionSwept = createProducer(redis, QUEUES.retentionSwept, RetentionSweptSchema, { prefix: config.QUEUE_PREFIX });
  const chatSessionIds = sessionIds(config.SESSION_SECRET);
  const admission = redisAdmission(redis, {
    prefix: config.QUEUE_PREFIX,
    rateLimits: { perVisitor: config.CHAT_RATE_PER_VISITOR, perChatbot: config.CHAT_RATE_PER_BOT },
  });
  const channelReplies = createProducer(redis, QUEUES.channelOutbound, ChannelReplyRequestedSchema, { prefix: config.QUEUE_PREFIX });
  const handoffCore: HandoffDeps = {
    channelReplies,
    db: prisma,
    logger,
    chatbots,
    billing,
    sessionIds: chatSessionIds,
    admission,
    mirror: handoffMirror,
    live,
    hub,
    prefix: config.QUEUE_PREFIX,
    recentTurns,
    timeouts: handoffTimeouts,
    handoffRequested,
    webhooks,
    maxMessageChars: config.MAX_MESSAGE_CHARS,
    summary: {
      model: router.defaultModel,
      credit: creditGate({ billing, logger, maxOutputTokens: SUMMARY_MAX_TOKENS }),
      publishUsage: (usage) => publishUsageRecorded(usageRecorded, usage),
    },
  };
  // Messaging channels (docs/adr/0044-messaging-channels.md): the provider's API, the sender with
  // its retries, and the queue between the webhook and the channel worker.
  const telegram = telegramApi({ baseUrl: config.TELEGRAM_API_BASE, timeoutMs: config.CHANNEL_TIMEOUT_MS });
  const slack = slackApi({ baseUrl: config.SLACK_API_BASE, timeoutMs: config.CHANNEL_TIMEOUT_MS });
  const meta = metaApi({ baseUrl: config.META_GRAPH_API_BASE, timeoutMs: config.CHANNEL_TIMEOUT_MS });
  const twilio = twilioApi({ baseUrl: config.TWILIO_API_BASE, timeoutMs: config.CHANNEL_TIMEOUT_MS });
  // Email (docs/adr/0063-email-channel.md): answers over the operator's SMTP (the outbox without it).
  const email = emailApi({
    smtpUrl: config.EMAIL_SMTP_URL ?? config.SMTP_URL,
    outboxDir: resolvePath(fileURLToPath(new URL('../../..', import.meta.url)), config.MAIL_OUTBOX_DIR),
  });
  const deliverDeps: DeliverDeps = {
    db: prisma,
    pool,
    telegram,
    slack,
    meta,
    twilio,
    email,
    emailDomain: config.EMAIL_INBOUND_DOMAIN,
    logger,
    policy: { attempts: config.CHANNEL_SEND_ATTEMPTS, backoffMs: 500, maxWaitMs: 60_000 },
  };
  const channelInbound = createProducer(redis, QUEUES.channelInbound, ChannelMessageReceivedSchema, {
    prefix: config.QUEUE_PREFIX,
    retries: CHANNEL_INBOUND_RETRIES,
  });
  const publicChat: Omit<ChatRpcDeps, 'quality'> = {
    channels: {
      db: prisma,
      ciphers: providerKeys.ciphers,
      telegram,
      slack,
      meta,
      twilio,
      deliver: deliverDeps,
      inbound: channelInbound,
      verifiers: verifierCache({ max: 10_000, ttlMs: 60_000 }),
      emailDomain: config.EMAIL_INBOUND_DOMAIN,
      email: { redis, domain: config.EMAIL_INBOUND_DOMAIN, prefix: config.QUEUE_PREFIX },
      slackApp: slackAppOf(config),
    },
    handoffCore,
    providerKeys,
    offered: router.offered,
    catalogue,
    handoff: visitorHandoff({ db: prisma, logger, mirror: handoffMirror, live }),
    identity: identitySecrets({ db: prisma, ciphers: providerKeys.ciphers, logger }),
    webhooks,
    db: prisma,
    exportDb,
    logger,
    chatbots,
    billing,
    sessionIds: chatSessionIds,
    admission,
    // With a model: the whole knowledge base when it fits the prompt's budget, else as many chunks as
    // the chatbot service chooses for that budget (k 0). Offline mode always quotes retrieved passages.
    chatbotContext: online
      ? chatbotContext({
          chatbotService: chatbots,
          logger,
          prefix: config.QUEUE_PREFIX,
          budgetChars: config.PROMPT_KNOWLEDGE_CHARS,
          k: 0,
          remember: true,
        })
      : chatbotContext({
          chatbotService: chatbots,
          logger,
          prefix: config.QUEUE_PREFIX,
          budgetChars: 0,
          k: OFFLINE_PASSAGES,
          remember: false,
        }),
    proofOfWork: altchaProofOfWork(redis, { prefix: config.QUEUE_PREFIX, hmacKey: config.ALTCHA_HMAC_KEY }),
    dailyMessages,
    history,
    credit: creditGate({ billing, logger, maxOutputTokens: config.MAX_OUTPUT_TOKENS }),
    models,
    tools: {
      actions: opts.actions ?? createServiceClient(ActionService, config.CHATBOT_URL, rpc),
      mcp: createServiceClient(McpServerService, config.CHATBOT_URL, rpc),
      logger,
      deadlineMs: config.TOOL_LOOP_DEADLINE_MS,
      pending: redisPendingActions(redis, config.QUEUE_PREFIX),
    },
    recorder: recorder({
      exchanges,
      history,
      logger,
      publishUsage: (usage) => publishUsageRecorded(usageRecorded, usage),
      publishInteraction: chatbotInteractionPublisher(analyticsInteraction, config.SESSION_SECRET),
    }),
    bounds: {
      maxMessageChars: config.MAX_MESSAGE_CHARS,
      maxOutputTokens: config.MAX_OUTPUT_TOKENS,
      promptKnowledgeChars: config.PROMPT_KNOWLEDGE_CHARS,
      historyChars: config.HISTORY_CHARS,
    },
  };

  const testRuns = createProducer(redis, QUEUES.testRun, TestRunDueSchema, { prefix: config.QUEUE_PREFIX });
  // The quality loop (docs/adr/0050-quality-loop.md): its cases are answered by the public chat's turn.
  const quality: RunDeps = {
    db: prisma,
    chatbots,
    logger,
    maxMessageChars: config.MAX_MESSAGE_CHARS,
    answer: {
      chat: publicChat,
      catalogue,
      publishUsage: (usage) => publishUsageRecorded(usageRecorded, usage),
      now: () => performance.now(),
    },
    runs: testRuns,
    offered: router.offered,
    judge: {
      models,
      credit: publicChat.credit,
      catalogue,
      publishUsage: (usage) => publishUsageRecorded(usageRecorded, usage),
    },
    regressed: createProducer(redis, QUEUES.testRunRegressed, TestRunRegressedSchema, { prefix: config.QUEUE_PREFIX }),
    concurrency: config.TEST_RUN_CONCURRENCY,
    autoRunDelayMs: config.TEST_AUTO_RUN_DELAY_MS,
  };
  const deps: ChatRpcDeps = { ...publicChat, quality };

  const conversationsOfDeleted = {
    db: prisma,
    recentTurns,
    removeChannels: (chatbotId: string) => removeChatbotChannels(deps.channels, chatbotId),
  };
  const chatbotDeletedWorker =
    opts.workers === false
      ? undefined
      : startChatbotDeletedWorker({
          redis,
          logger,
          prefix: config.QUEUE_PREFIX,
          deleteConversations: (chatbotId) => deleteChatbotConversations(conversationsOfDeleted, chatbotId),
        });
  const accountDeletedWorker =
    opts.workers === false
      ? undefined
      : startAccountDeletedWorker({
          redis,
          logger,
          prefix: config.QUEUE_PREFIX,
          deleteOwnerConversations: (input) => deleteOwnerConversations(conversationsOfDeleted, input),
        });

  const analyticsWorker =
    opts.workers === false
      ? undefined
      : startAnalyticsWorker({
          redis,
          logger,
          prefix: config.QUEUE_PREFIX,
          recordAnalytics: (batch) =>
            recordAnalyticsBatch(
              prisma,
              batch,
              (records) => announceInteractionsCounted({ db: prisma, publish: publishInteractionsCounted, logger }, records),
              announceWebhookEvents,
            ),
        });
  // A waiting visitor whom nobody answered in time goes back to the bot (ADR 34).
  const handoffTimeoutWorker =
    opts.workers === false
      ? undefined
      : startHandoffTimeoutWorker({
          redis,
          logger,
          prefix: config.QUEUE_PREFIX,
          timedOut: (event) => handoffTimedOut(handoffCore, timeoutOf(event)),
        });
  const qualityWorkers =
    opts.workers === false
      ? []
      : startQualityWorkers({
          redis,
          logger,
          prefix: config.QUEUE_PREFIX,
          scheduleAutomaticRun: (chatbotId) => scheduleAutomaticRun(quality, chatbotId),
          runDue: (event) => runDue(quality, event),
          runsAtOnce: config.TEST_RUNS_PER_INSTANCE,
        });
  const channelInboundWorker =
    opts.workers === false
      ? undefined
      : startChannelInboundWorker({
          redis,
          logger,
          prefix: config.QUEUE_PREFIX,
          answer: (event) =>
            answerChannelMessage(
              {
                db: prisma,
                pool,
                ciphers: providerKeys.ciphers,
                sessionIds: chatSessionIds,
                publicChat: deps,
                deliver: deliverDeps,
                logger,
                requestHandoff: (raw) => requestHandoff(handoffCore, raw),
                takeLead: (input) => takeChannelLead({ db: prisma, webhooks }, input),
              },
              event,
            ),
        });
  const channelOutboundWorker =
    opts.workers === false
      ? undefined
      : startChannelOutboundWorker({
          redis,
          logger,
          prefix: config.QUEUE_PREFIX,
          send: (event) => sendAgentReply({ db: prisma, ciphers: providerKeys.ciphers, deliver: deliverDeps }, event),
        });
  const stopPruning = opts.workers === false ? undefined : startPruningProcessedAnalyticsEvents(prisma, logger);
  // What is past a workspace's retention windows is deleted every hour (docs/adr/0048-retention-windows.md).
  const stopRetention =
    opts.workers === false
      ? undefined
      : startRetentionSweep(prisma, logger, (ownerId, counts) => publishRetentionSwept(retentionSwept, ownerId, counts, logger));
  // Holds whose answer's usage was lost (a process died before its batch was published): billed from the stored exchange (ADR 37).
  const reconcileDeps = { billing, db: exchanges, publishUsage: (usage: Usage) => publishUsageRecorded(usageRecorded, usage), logger };
  const stopReconciling = opts.workers === false ? undefined : startReconcilingHolds(reconcileDeps, config.RECONCILE_HOLDS_MS);
  // Publishes the chatbots' counted interactions a batch could not (ChatbotInteractionsCountedOutbox).
  const stopInteractionsRelay =
    opts.workers === false ? undefined : startChatbotInteractionsCountedRelay(prisma, publishInteractionsCounted, logger);

  const app = createServiceApp({
    logger,
    trust: {
      secret: config.SERVICE_SECRET,
      previousSecret: config.SERVICE_SECRET_PREVIOUS,
      callers: ['gateway'],
      permissions: chatPermissions,
    },
    routes: chatRoutes(deps),
    readiness: dataReadiness(prisma, redis),
  });

  // No new job and no new sweep; the jobs in hand finish.
  const emailSmtpInbound =
    config.EMAIL_SMTP_INBOUND_PORT === undefined
      ? undefined
      : // Loaded only here: the SMTP server and the mail parser are development's (docs/adr/0068-memory-at-rest.md).
        await (
          await import('./channels/email-smtp.ts')
        ).startEmailSmtpInbound(
          { ...deps.channels, email: { redis, domain: config.EMAIL_INBOUND_DOMAIN, prefix: config.QUEUE_PREFIX }, logger },
          config.EMAIL_SMTP_INBOUND_PORT,
        );
  const stopBackground = async () => {
    stopPruning?.();
    stopReconciling?.();
    stopRetention?.();
    stopInteractionsRelay?.();
    await Promise.all([
      chatbotDeletedWorker?.close(),
      accountDeletedWorker?.close(),
      analyticsWorker?.close(),
      handoffTimeoutWorker?.close(),
      ...qualityWorkers.map((w) => w.close()),
      channelInboundWorker?.close(),
      channelOutboundWorker?.close(),
    ]);
  };

  return {
    app,
    prisma,
    exchanges,
    exportDb,
    deps,
    chatbotDeletedWorker,
    accountDeletedWorker,
    analyticsWorker,
    handoffTimeoutWorker,
    qualityWorkers,
    channelInboundWorker,
    emailSmtpInbound,
    flushEvents: async () => {
      await Promise.all([usageRecorded.flush(), analyticsInteraction.flush()]);
    },
    reconcileHolds: () => reconcileHolds(reconcileDeps),
    // The live streams end with the background work, so the server's drain does not wait on them.
    background: [stopBackground, () => hub.close()],
    closers: [
      // Workers first: close() waits for the jobs in flight to finish before it resolves.
      stopBackground,
      () => usageRecorded.close(),
      () => analyticsInteraction.close(),
      () => interactionsCounted.close(),
      // The live streams end (their responses close), then the subscriber connection goes (already done after a drain).
      () => hub.close(),
      () => providerKeyWatch.close(),
      () => handoffTimeouts.close(),
      () => handoffRequested.close(),
      () => retentionSwept.close(),
      () => testRuns.close(),
      () => channelInbound.close(),
      () => channelReplies.close(),
      async () => {
        await emailSmtpInbound?.close();
        email.close();
      },
      () => webhooks.close(),
      () => redis.quit(),
      () => prisma.$disconnect(),
      () => exchanges.end(),
      () => exportDb.end(),
    ],
  };
}
