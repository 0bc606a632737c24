// The chatbot service's environment, validated at start: a bad value stops the process with a
// message naming it.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commonVars, ConfigError, int, port, readConfig, serviceUrl, text } from '@parley/common/config.ts';

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
  /** Uploaded pictures are written under MEDIA_DIR/chatbots and served (by the gateway) at /media. */
  MEDIA_DIR: { parse: directory, default: '.data/media' },
  MAX_PICTURE_BYTES: { parse: int(1, 100 * 1024 * 1024), default: String(2 * 1024 * 1024) },
  MAX_ENTRY_CHARS: { parse: int(1, 10_000_000), default: '100000' },
  MAX_KNOWLEDGE_CHARS_PER_BOT: { parse: int(1, 2_000_000_000), default: '5000000' },
  /** Deadline of calls to other services (billing). */
  RPC_TIMEOUT_MS: { parse: int(1, 600_000), default: '5000' },
};

export type ChatbotConfig = ReturnType<typeof readChatbotConfig>;

export function readChatbotConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(chatbotVars, env);
}
