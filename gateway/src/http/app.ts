// Builds the gateway: one Express app serving the REST paths, GraphQL, media and the web app on one
// origin. Tests start it on a random port with serveApp.
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import helmet from 'helmet';
import { currentRequestId, parseTraceparent, REQUEST_ID_HEADER, runWithRequestId, TRACEPARENT_HEADER } from '@parley/common/context.ts';
import { requestDuration } from '@parley/common/http.ts';
import type { Logger } from '@parley/common/logger.ts';
import { createRedis } from '@parley/common/redis.ts';
import type { ServiceParts } from '@parley/common/service.ts';
import { startSpan } from '@parley/common/tracing.ts';
import { watchAccessChanges } from '@parley/common/access-changes.ts';
import { loadCatalogue } from '@parley/common/models/catalogue.ts';
import { createClients } from './clients.ts';
import type { GatewayConfig } from '../config.ts';
import { toHttpError } from './errors.ts';
import { devMailRoutes } from '../test-mode/dev-mail.ts';
import { createGraphQL } from './graphql.ts';
import { healthRouter } from './health.ts';
import { HeldStreams } from '../access/held-streams.ts';
import { apiRouter, PROVIDER_PREFIX, providerRouter, type ApiOptions } from './api.ts';
import { OpenStreams } from './open-streams.ts';
import { publicChatCors } from '../features/public-chat/rest.ts';
import { keyChecker } from '../access/api-keys.ts';
import { apiV1Router } from '../v1/router.ts';
import { chatbotEmbedDomains, mediaRouter, webAppRouter } from './static.ts';
import { createStripeEventIntake, webhookSecret } from '../features/billing/stripe-events.ts';
import { testCheckoutRoutes } from '../test-mode/test-checkout.ts';
import { channelIntake } from '../features/channels/channel-intake.ts';
import { createSlackInstall } from '../features/channels/slack-install.ts';
import { CHANNEL_INBOUND_RETRIES } from '@parley/common/channel-webhook.ts';
import { createProducer, QUEUES } from '@parley/common/queues.ts';
import { ChannelMessageReceivedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import { TEST_PORTAL_PATH, testPortalRoutes } from '../test-mode/test-portal.ts';

/** The least time the chatbot service gets to take in an uploaded file. */
const UPLOAD_RPC_TIMEOUT_MS = 30_000;

export async function createGateway(config: GatewayConfig, { logger }: { logger: Logger }): Promise<ServiceParts> {
  const clients = createClients(config);
  // Names the models chatbots answer with; which of them a workspace may choose is the chat service's list (models.ts).
  const catalogue = loadCatalogue({ MODEL_CATALOGUE_FILE: config.MODEL_CATALOGUE_FILE });
  const graphql = await createGraphQL({
    clients,
    catalogue,
    logger,
    bodyLimit: config.BODY_LIMIT,
    publicUrl: config.PUBLIC_URL,
    seats: { free: config.SEATS_FREE, pro: config.SEATS_PRO },
    production: config.NODE_ENV === 'production',
  });
  const redis = createRedis(config.REDIS_URL);
  redis.on('error', (err) => logger.error({ err: err.message }, 'redis error'));
  const { secret, generated } = webhookSecret(config.STRIPE_WEBHOOK_SECRET);
  if (generated) logger.info('STRIPE_WEBHOOK_SECRET is not set: only test-mode checkout events signed by this process are accepted');
  const conversationStreams = new OpenStreams();
  // Long-lived responses of members and keys, re-checked when auth announces a change of access (ADR 35).
  const held = new HeldStreams({ recheckMs: config.ACCESS_RECHECK_MS, logger });
  const keys = keyChecker(clients, { cacheMs: config.API_KEY_CACHE_MS, refusalCacheMs: config.API_KEY_REFUSAL_CACHE_MS });
  const accessWatch = watchAccessChanges(
    redis,
    config.QUEUE_PREFIX,
    {
      onChange(change) {
        keys.forget(change.apiKeyIds);
        held.changed(change);
      },
      onGap() {
        keys.forgetAll();
        void held.recheckAll();
      },
    },
    logger,
  );
  const stripeEvents = createStripeEventIntake({ redis, prefix: config.QUEUE_PREFIX, secret, logger });
  // Telegram's, Slack's and Meta's webhooks acknowledged after one queue add, no call to chat (ADR 64, ADR 69).
  const channelWebhooks = channelIntake({
    clients,
    inbound: createProducer(redis, QUEUES.channelInbound, ChannelMessageReceivedSchema, {
      prefix: config.QUEUE_PREFIX,
      retries: CHANNEL_INBOUND_RETRIES,
      // A burst of updates read in one turn is queued in one round trip.
      gatherTurn: true,
    }),
  });

  const apiOptions: ApiOptions = {
    clients,
    catalogue,
    logger,
    bodyLimit: config.BODY_LIMIT,
    maxPictureBytes: config.MAX_PICTURE_BYTES,
    maxUploadBytes: config.MAX_UPLOAD_BYTES,
    // Handing over a file of up to MAX_UPLOAD_BYTES (it is stored before the answer) takes longer than an ordinary call.
    uploadTimeoutMs: Math.max(config.RPC_TIMEOUT_MS, UPLOAD_RPC_TIMEOUT_MS),
    chatTimeoutMs: config.CHAT_TIMEOUT_MS,
    ssePingMs: config.SSE_PING_MS,
    conversationStreams,
    held,
    publicUrl: config.PUBLIC_URL,
    stripeEvents,
    channelIntake: channelWebhooks,
    slackInstall: createSlackInstall(clients, {
      redis,
      prefix: config.QUEUE_PREFIX,
      publicUrl: config.PUBLIC_URL,
      clientId: config.SLACK_CLIENT_ID,
      authorizeUrl: config.SLACK_AUTHORIZE_URL,
      secret: config.SERVICE_SECRET,
      logger,
    }),
    seats: { free: config.SEATS_FREE, pro: config.SEATS_PRO },
  };

  const app = express();
  app.disable('x-powered-by');
  // req.ip then honours X-Forwarded-For from exactly this many proxies, so a client cannot spoof it.
  app.set('trust proxy', config.TRUST_PROXY);
  app.use(requestContext(logger));
  // A provider's webhook calls (the messaging channels') answered before every layer a browser's
  // answer needs: a burst of them costs the gateway its checks and one queue add, and little else.
  app.use(PROVIDER_PREFIX, providerRouter(apiOptions));
  app.use(securityHeaders(config.PUBLIC_URL));
  app.use(healthRouter({ redis }));
  // Before the API's own parsing and checks, so host pages can read every answer of the public paths.
  app.use('/api/chatbot/public', publicChatCors);
  // The developer API before the dashboard's: a key never reaches the session routes, nor a session these.
  app.use(
    '/api/v1',
    apiV1Router({
      clients,
      catalogue,
      logger,
      redis,
      prefix: config.QUEUE_PREFIX,
      bodyLimit: config.BODY_LIMIT,
      maxUploadBytes: config.MAX_UPLOAD_BYTES,
      uploadTimeoutMs: Math.max(config.RPC_TIMEOUT_MS, UPLOAD_RPC_TIMEOUT_MS),
      chatTimeoutMs: config.CHAT_TIMEOUT_MS,
      publicUrl: config.PUBLIC_URL,
      keys,
      held,
      rateLimit: config.API_RATE_LIMIT,
      rateWindowMs: config.API_RATE_WINDOW_MS,
      keyFailuresPerIp: config.API_KEY_FAILURES_PER_IP,
      keyFailureWindowMs: config.API_KEY_FAILURE_WINDOW_MS,
    }),
  );
  app.use('/api', apiRouter(apiOptions));
  app.use('/graphql', graphql.router);
  // The test-mode checkout page (its forms carry no fields: the path says everything).
  app.use('/checkout/test', testCheckoutRoutes(clients, stripeEvents, logger));
  // The test-mode subscription management page (billing's test portal sessions point here).
  app.use(TEST_PORTAL_PATH, testPortalRoutes(clients, stripeEvents, logger));
  if (config.NODE_ENV !== 'production') app.use('/dev/mail', devMailRoutes(config.MAIL_OUTBOX_DIR));
  app.use('/media', mediaRouter(config.MEDIA_DIR));
  app.use(webAppRouter(config.WEB_DIST_DIR, { embedDomains: chatbotEmbedDomains(clients, logger) }));
  app.use((_req, res) => {
    res.status(404).json({ message: 'Not found' });
  });
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const { status, body } = toHttpError(err, logger);
    res.status(status).json(body);
  };
  app.use(onError);

  return {
    app,
    // Open visitor streams would hold the server's close until the deadline: they end at once, and
    // the pages reconnect to another replica.
    background: [() => conversationStreams.endAll()],
    closers: [
      graphql.stop,
      () => stripeEvents.close(),
      () => channelWebhooks.close(),
      async () => held.close(),
      () => accessWatch.close(),
      () => redis.quit(),
    ],
  };
}

/**
 * Runs each request under its id (from x-request-id or new) and its trace (continuing the caller's
 * traceparent, or a new one), echoes the id, measures and logs the request.
 */
function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const span = startSpan('request', 'server', parseTraceparent(req.header(TRACEPARENT_HEADER)), { 'http.request.method': req.method });
    runWithRequestId(
      req.header(REQUEST_ID_HEADER),
      () => {
        res.setHeader(REQUEST_ID_HEADER, currentRequestId() ?? '');
        const started = process.hrtime.bigint();
        const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
        // Read at start: routers rewrite req.path while the request moves through them.
        const path = req.path;
        // On close, which also comes when the visitor left before the answer was over.
        res.on('close', () => {
          const route = routeTemplate(req);
          requestDuration.labels(route, req.method, String(res.statusCode)).observe(seconds());
          span.end(
            { 'http.route': route, 'http.response.status_code': res.statusCode },
            res.statusCode >= 500 ? `status ${res.statusCode}` : undefined,
            `${req.method} ${route}`,
          );
        });
        res.on('finish', () => {
          if (path === '/healthz' || path === '/readyz') return;
          logger.info({ method: req.method, path, status: res.statusCode, ms: seconds() * 1000 }, 'request');
        });
        next();
      },
      span.context,
    );
  };
}

/**
 * The route a request matched, as its template (`/api/chatbot/public/:uniqueId/chat`), never its raw
 * path: the label's values are the routes in the code. A request no route matched (the web app's
 * files, an unknown path) is 'other'.
 */
function routeTemplate(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route?.path;
  if (typeof route !== 'string') return 'other';
  // Mount paths match in any case (`/API/Chatbot`): the label takes the code's spelling.
  return `${req.baseUrl}${route === '/' && req.baseUrl ? '' : route}`.toLowerCase();
}

/** Helmet's headers with a CSP the built React app works under (no inline scripts, inline styles allowed). */
function securityHeaders(publicUrl: string): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'self'"],
        // Upgrading would break a plain-http deployment (a LAN address); only ask for it behind https.
        upgradeInsecureRequests: publicUrl.startsWith('https:') ? [] : null,
      },
    },
  });
}
