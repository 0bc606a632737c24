// The /api router: the features' operation tables (operations.ts, collected in access/permissions.ts),
// every /api route among them, a JSON 404 for anything else, and the error handler that turns every
// failure into `{ message }` through errors.ts.
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from '@parley/common/logger.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { Clients } from './clients.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import { bodyParserError, MALFORMED_URL, toHttpError } from './errors.ts';
import type { HeldStreams } from '../access/held-streams.ts';
import type { StripeEventIntake } from '../features/billing/stripe-events.ts';
import { isCleanText } from './input.ts';
import { registerOperations } from './operations.ts';
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

export function apiRouter(opts: ApiOptions): Router {
  const router = Router();
  router.use(noStore, cleanPath);
  // Each operation reads its own body once its caller is checked (operations.ts); their paths are
  // whole, so no other route's mounting can shadow them.
  registerOperations(
    router,
    OPERATIONS,
    {
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
    },
    '/api',
  );
  router.use((_req, res) => {
    res.status(404).json({ message: 'Not found' });
  });
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    const { status, body } = bodyParserError(err) ?? toHttpError(err, opts.logger);
    res.status(status).json(body);
  };
  router.use(onError);
  return router;
}
