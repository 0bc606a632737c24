// What every developer API handler is given (router.ts checks it first): the request, the key, its
// workspace, and the body and query as the route's schemas read them (routes.ts).
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { Redis } from '@parley/common/redis.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import type { Clients } from '../http/clients.ts';
import type { HeldStreams } from '../access/held-streams.ts';
import type { ApiKeyCaller, KeyChecker } from '../access/api-keys.ts';
import type { API_V1_ROUTES, ApiRouteKey } from './routes.ts';
import { CHATBOT_NOT_FOUND } from '@parley/common/not-found.ts';

export { CHATBOT_NOT_FOUND };

export const scopeMissing = (scope: string) => `This API key lacks the "${scope}" scope.`;

export interface ApiV1Options {
  clients: Clients;
  /** The model catalogue, which names the models chatbots answer with. */
  catalogue: ModelCatalogue;
  logger: Logger;
  redis: Redis;
  prefix: string;
  bodyLimit: string;
  maxUploadBytes: number;
  uploadTimeoutMs: number;
  chatTimeoutMs: number;
  publicUrl: string;
  /** The key check, with its cache (keys.ts); the gateway forgets a key there when auth announces its revocation. */
  keys: KeyChecker;
  /** The gateway's held streams: a key's streamed answer is held, and ends when the key stops working (ADR 35). */
  held: HeldStreams;
  /** Calls a key may make per window (API_RATE_LIMIT), and the window (API_RATE_WINDOW_MS). */
  rateLimit: number;
  rateWindowMs: number;
  /** Refused key checks one client address may cause per window (API_KEY_FAILURES_PER_IP), and the window (API_KEY_FAILURE_WINDOW_MS). */
  keyFailuresPerIp: number;
  keyFailureWindowMs: number;
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

/** What a handler gets: the checked request, the key, and the validated body and query. */
export interface V1Call<K extends ApiRouteKey> {
  req: Request;
  res: Response;
  key: ApiKeyCaller;
  /** The key's workspace: what the services call the owner. */
  ownerId: string;
  /** HeldStreams.mark() from before the key was checked, for a handler that holds its response open. */
  accessMark: number;
  body: Infer<(typeof API_V1_ROUTES)[K] extends { body: infer B } ? B : undefined>;
  query: Infer<(typeof API_V1_ROUTES)[K] extends { query: infer Q } ? Q : undefined>;
}

export type On = <K extends ApiRouteKey>(key: K, handler: (call: V1Call<K>) => Promise<void>) => void;

/** Whether the key may act on this chatbot (every chatbot when it names none). */
export const keyReaches = (key: ApiKeyCaller, chatbotId: string) => key.chatbotIds.size === 0 || key.chatbotIds.has(chatbotId);

export const LIMIT_INVALID = 'limit must be a whole number from 1 to 100';
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

/** A page's `limit` query parameter: 1 to 100, 20 when absent. */
export function pageLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PAGE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) throw invalid(LIMIT_INVALID);
  return n;
}
