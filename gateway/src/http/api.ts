// The /api router: the features' operation tables (operations.ts, collected in access/permissions.ts),
// every /api route among them, a JSON 404 for anything else, and the error handler that turns every
// failure into `{ message }` through errors.ts; and the providers' router, the rows a provider's
// servers call, which the app mounts ahead of a page's layers (docs/adr/0073-a-providers-webhook-ahead-of-a-pages-layers.md).
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from '@parley/common/logger.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { Clients } from './clients.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { bodyParserError, MALFORMED_URL, toHttpError } from './errors.ts';
import type { HeldStreams } from '../access/held-streams.ts';
import type { StripeEventIntake } from '../features/billing/stripe-events.ts';
import { isCleanText } from './input.ts';
import { registerOperations, type DashboardFace } from './operations.ts';
import { OPERATIONS } from '../access/permissions.ts';
import type { OpenStreams } from './open-streams.ts';
import type { SlackInstall } from '../features/channels/slack-install.ts';
import type { ChannelIntake } from '../features/channels/channel-intake.ts';
import type { Seats } from '../features/workspaces/workspaces.ts';

export interface ApiOptions {
  clients: Clients;
  /** The model catalogue, which names the models chatbots answer with. */
  catalogue: ModelCatalogue;
  logger: Logger;
  bodyLimit: string;
  maxPictureBytes: number;
  maxUploadBytes: number;
  uploadTimeoutMs: number;
  chatTimeoutMs: number;
  /** How often a live stream sends `: ping`. */
  ssePingMs: number;
  /** The gateway's open live streams (a visitor's conversation, the inbox), ended when it shuts down. */
  conversationStreams?: OpenStreams;
  /** Members' long-lived responses, which end when access is taken away (held-streams.ts). */
  held: HeldStreams;
  publicUrl: string;
  stripeEvents: StripeEventIntake;
  /** Telegram's, Slack's and Meta's webhooks checked and queued by the gateway (ADR 64, ADR 69). */
  channelIntake?: ChannelIntake;
  /** "Add to Slack": its start under /chatbot and Slack's redirect back under /channels (ADR 64). */
  slackInstall?: SlackInstall;
  /** How many members each plan allows a workspace (SEATS_FREE, SEATS_PRO). */
  seats: Seats;
}

/** API answers are one user's data (or a visitor's conversation): never stored by a browser or a proxy. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * Path ids are decoded by Express route by route; refusing a path that does not decode, or decodes
 * to control characters, here answers every route the same way and keeps `%00` away from services.
 */
export const cleanPath: RequestHandler = (req, _res, next) => {
  let decoded: string;
  try {
    decoded = decodeURIComponent(req.path);
  } catch {
    return next(invalid(MALFORMED_URL));
  }
  next(isCleanText(decoded) ? undefined : invalid(MALFORMED_URL));
};

/** The dashboard's face of the operation rows (operations.ts): what their handlers use, the body limit. */
function dashboardFace(opts: ApiOptions): DashboardFace {
  return {
    face: 'dashboard',
    bodyLimit: opts.bodyLimit,
    deps: {
      clients: opts.clients,
      logger: opts.logger,
      publicUrl: opts.publicUrl,
      seats: opts.seats,
      catalogue: opts.catalogue,
      uploads: { maxPictureBytes: opts.maxPictureBytes, maxUploadBytes: opts.maxUploadBytes, uploadTimeoutMs: opts.uploadTimeoutMs },
      chatTimeoutMs: opts.chatTimeoutMs,
      ssePingMs: opts.ssePingMs,
      streams: opts.conversationStreams,
      held: opts.held,
      intake: opts.channelIntake,
      slackInstall: opts.slackInstall,
      stripeEvents: opts.stripeEvents,
    },
  };
}

/** Every failure as `{ message }` (errors.ts). */
const answerErrors =
  (logger: Logger): ErrorRequestHandler =>
  (err, _req, res, _next) => {
    const { status, body } = bodyParserError(err) ?? toHttpError(err, logger);
    res.status(status).json(body);
  };

/** Where the rows a provider's servers call live (operations.ts `provider`): the channels' webhooks. */
export const PROVIDER_PREFIX = '/api/channels';

/**
 * The rows a provider's servers call, mounted by the app at PROVIDER_PREFIX ahead of the browser's
 * layers: the same face, checks and answers as the /api router's rows, with its path rules (no-store,
 * cleanPath) and none of a page's. A request no row of it takes goes on to the /api router.
 */
export function providerRouter(opts: ApiOptions): Router {
  const router = Router();
  router.use(noStore, cleanPath);
  const rows = OPERATIONS.filter((row) => row.provider);
  if (rows.length > 0) registerOperations(router, rows, dashboardFace(opts), PROVIDER_PREFIX);
  router.use(answerErrors(opts.logger));
  return router;
}

export function apiRouter(opts: ApiOptions): Router {
  const router = Router();
  router.use(noStore, cleanPath);
  // Each operation reads its own body once its caller is checked (operations.ts); their paths are
  // whole, so no other route's mounting can shadow them. A provider's rows are providerRouter's.
  registerOperations(
    router,
    OPERATIONS.filter((row) => !row.provider),
    dashboardFace(opts),
    '/api',
  );
  router.use((_req, res) => {
    res.status(404).json({ message: 'Not found' });
  });
  router.use(answerErrors(opts.logger));
  return router;
}
