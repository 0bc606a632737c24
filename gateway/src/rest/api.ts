// The /api router: JSON bodies, the documented paths, a JSON 404 for anything else, and the error
// handler that turns every failure into `{ message }` through errors.ts.
import express, { Router, type ErrorRequestHandler } from 'express';
import type { Logger } from '@parley/common/logger.ts';
import type { Clients } from '../clients.ts';
import { bodyParserError, toHttpError } from '../errors.ts';
import { authRoutes } from './auth.ts';
import { chatbotRoutes } from './chatbots.ts';
import { publicChatRoutes } from './public-chat.ts';

export interface ApiOptions {
  clients: Clients;
  logger: Logger;
  bodyLimit: string;
  maxPictureBytes: number;
  chatTimeoutMs: number;
}

export function apiRouter(opts: ApiOptions): Router {
  const router = Router();
  router.use(express.json({ limit: opts.bodyLimit }));
  router.use('/auth', authRoutes(opts.clients));
  // Before the owner routes, so "public" is never read as a chatbot id.
  router.use('/chatbot/public', publicChatRoutes(opts.clients, { timeoutMs: opts.chatTimeoutMs, logger: opts.logger }));
  router.use('/chatbot', chatbotRoutes(opts.clients, { maxPictureBytes: opts.maxPictureBytes }));
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
