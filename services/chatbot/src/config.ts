// The chatbot service's environment, validated at start: a bad value stops the process with a
// message naming it.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  commonVars,
  ConfigError,
  int,
  oneOf,
  port,
  readConfig,
  serviceResolveInterval,
  serviceUrl,
  text,
  url,
} from '@parley/common/config.ts';
import { parseAllowList } from '@parley/common/outbound/guard.ts';
import { encryptionKey } from '@parley/common/sealed-secret.ts';

export const DEV_ACTION_SECRET_ENCRYPTION_KEY = Buffer.from('parley development action secrets').subarray(0, 32).toString('base64');

const allowList = (raw: string, name: string): string => {
  try {
    parseAllowList(raw);
  } catch (err) {
    throw new ConfigError(`${name}: ${(err as Error).message}`);
  }
  return raw;
};

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

const schemaName = (raw: string, name: string): string => {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw))
    throw new ConfigError(`${name} must be a Postgres schema name (lower case, digits, _), got "${raw}"`);
  return raw;
};

/** A directory, made absolute (relative paths are taken from the repository root, like the default). */
const directory = (raw: string, name: string): string => {
  if (!raw.trim()) throw new ConfigError(`${name} must be a directory path`);
  return resolve(repoRoot, raw);
};

export const chatbotVars = {
  ...commonVars,
  PORT: { parse: port, default: '4002' },
  CHATBOT_DB_SCHEMA: { parse: schemaName, default: 'chatbot' },
  QUEUE_PREFIX: { parse: text, default: 'parley' },
  BILLING_URL: serviceUrl('BILLING_URL'),
  SERVICE_RESOLVE_INTERVAL_MS: serviceResolveInterval,
  /** Uploaded pictures are written under MEDIA_DIR/chatbots and served (by the gateway) at /media. */
  MEDIA_DIR: { parse: directory, default: '.data/media' },
  MAX_PICTURE_BYTES: { parse: int(1, 100 * 1024 * 1024), default: String(2 * 1024 * 1024) },
  MAX_ENTRY_CHARS: { parse: int(1, 10_000_000), default: '100000' },
  MAX_KNOWLEDGE_CHARS_PER_BOT: { parse: int(1, 2_000_000_000), default: '5000000' },
  /** Largest uploaded knowledge file (docs: "Knowledge from files"); the gateway refuses larger ones first. */
  MAX_UPLOAD_BYTES: { parse: int(1, 200 * 1024 * 1024), default: String(20 * 1024 * 1024) },
  /** Largest text a file or web page may add as one entry. */
  MAX_DOCUMENT_CHARS: { parse: int(1, 100_000_000), default: '2000000' },
  /** A parse (in a worker thread) is stopped after this long, and may use at most KNOWLEDGE_PARSE_MEMORY_MB of heap. */
  KNOWLEDGE_PARSE_TIMEOUT_MS: { parse: int(100, 600_000), default: '60000' },
  KNOWLEDGE_PARSE_MEMORY_MB: { parse: int(32, 4096), default: '256' },
  /** Per web request: its deadline and the largest body read. */
  KNOWLEDGE_FETCH_TIMEOUT_MS: { parse: int(100, 120_000), default: '10000' },
  KNOWLEDGE_FETCH_MAX_BYTES: { parse: int(1024, 100 * 1024 * 1024), default: String(5 * 1024 * 1024) },
  /** 1: web pages on private, loopback and link-local addresses may be fetched (tests and local use only). */
  KNOWLEDGE_URL_ALLOW_PRIVATE: { parse: oneOf(['0', '1'] as const), default: '0' },
  /**
   * The operator's allow-list for the outbound guard (web pages, webhooks, actions): comma-separated
   * CIDR ranges, addresses and host names on a private network that may be reached, e.g.
   * "10.20.0.0/16,billing.internal". Everything else private stays refused.
   */
  OUTBOUND_ALLOW: { parse: allowList, optional: true },
  /** Seals the HTTP actions' secrets at rest (32 bytes in base64; production refuses the development default). */
  ACTION_SECRET_ENCRYPTION_KEY: { parse: encryptionKey(DEV_ACTION_SECRET_ENCRYPTION_KEY), default: DEV_ACTION_SECRET_ENCRYPTION_KEY },
  /** How often a website entry with auto-sync on is fetched again. */
  KNOWLEDGE_SYNC_INTERVAL_MS: { parse: int(60_000, 30 * 24 * 3600_000), default: String(24 * 3600_000) },
  /** Background jobs (parse, fetch) run side by side per process. */
  KNOWLEDGE_INGEST_CONCURRENCY: { parse: int(1, 32), default: '2' },
  /** An OpenAI-compatible API (…/v1) with /embeddings, e.g. OpenAI's or Ollama's; unset: full-text retrieval only (ADR 0015). */
  EMBEDDINGS_URL: { parse: url(['http', 'https']), optional: true },
  EMBEDDINGS_API_KEY: { parse: text, optional: true },
  /** The embeddings model, e.g. text-embedding-3-small or nomic-embed-text; required with EMBEDDINGS_URL. */
  EMBEDDINGS_MODEL: { parse: text, optional: true },
  /** Webhook deliveries (docs/adr/0032-webhooks.md): one attempt's deadline. */
  WEBHOOK_TIMEOUT_MS: { parse: int(100, 60_000), default: '10000' },
  /** Attempts of one delivery; the retries wait WEBHOOK_RETRY_BASE_MS, then twice as long each time (12 and 40 s: about 23 hours in all). */
  WEBHOOK_MAX_ATTEMPTS: { parse: int(1, 30), default: '12' },
  WEBHOOK_RETRY_BASE_MS: { parse: int(1, 3600_000), default: '40000' },
  /** An endpoint whose deliveries have all failed for this long is disabled and its owners mailed. */
  WEBHOOK_DISABLE_AFTER_MS: { parse: int(0, 30 * 24 * 3600_000), default: String(24 * 3600_000) },
  /** Delivery attempts run side by side per process. */
  WEBHOOK_DELIVERY_CONCURRENCY: { parse: int(1, 64), default: '8' },
  /** The model catalogue (services/common/src/models/catalogue.ts); unset: the shipped defaults. */
  MODEL_CATALOGUE_FILE: { parse: text, optional: true },
  /** Deadline of calls to other services (billing). */
  RPC_TIMEOUT_MS: { parse: int(1, 600_000), default: '5000' },
};

export type ChatbotConfig = ReturnType<typeof readChatbotConfig>;

export function readChatbotConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(chatbotVars, env);
}
