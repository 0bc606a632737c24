// The chat service's environment, validated at start: a bad value stops the process with a message
// naming it. Nothing here comes from a visitor: limits, the model endpoint and budgets are the
// server's own.
import { commonVars, ConfigError, int, readConfig, port, serviceResolveInterval, serviceUrl, text, url } from '@parley/common/config.ts';
import { encryptionKey } from '@parley/common/sealed-secret.ts';

const schemaName = (raw: string, name: string): string => {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw))
    throw new ConfigError(`${name} must be a Postgres schema name (lower case, digits, _), got "${raw}"`);
  return raw;
};

const secret = (raw: string, name: string): string => {
  if (/\s/.test(raw)) throw new ConfigError(`${name} must not contain whitespace`);
  return raw;
};

/** The development default of SESSION_SECRET; the service warns when it runs with it, and production refuses it. */
export const DEV_SESSION_SECRET = 'parley-dev-session-secret';

/** The development default of ALTCHA_HMAC_KEY; the service warns when it runs with it, and production refuses it. */
export const DEV_ALTCHA_HMAC_KEY = 'parley-dev-altcha-hmac-key';

/** The development default of PROVIDER_KEY_ENCRYPTION_KEY; the service warns when it runs with it, and production refuses it. */
export const DEV_PROVIDER_KEY_ENCRYPTION_KEY = Buffer.from('parley development provider keys!').subarray(0, 32).toString('base64');

/** A mail domain: lower-case labels of letters, digits and hyphens, at least two. */
const emailDomain = (raw: string, name: string): string => {
  const domain = raw.trim().toLowerCase();
  if (!/^(?=.{3,200}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/.test(domain))
    throw new ConfigError(`${name} must be a mail domain (e.g. mail.example.com)`);
  return domain;
};

/** An smtp:// or smtps:// URL, or undefined when unset; never repeated in a message (it may hold a password). */
const smtpUrl = (raw: string, name: string): string | undefined => {
  if (!raw) return undefined;
  let parsed: URL | null;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:'))
    throw new ConfigError(`${name} must be an smtp:// or smtps:// URL (e.g. smtp://user:password@mail.example.com:587)`);
  return raw;
};

const DEVELOPMENT_DEFAULTS = new Set([DEV_SESSION_SECRET, DEV_ALTCHA_HMAC_KEY]);

/** A secret the chat instances share. Production refuses the development default, as it does SERVICE_SECRET's. */
const signingSecret = (raw: string, name: string, env: NodeJS.ProcessEnv): string => {
  if (env.NODE_ENV === 'production' && DEVELOPMENT_DEFAULTS.has(raw)) {
    throw new ConfigError(
      `${name} is required in production (16 or more characters, the same on every chat instance): the development default is refused`,
    );
  }
  secret(raw, name);
  if (raw.length < 16) throw new ConfigError(`${name} must be at least 16 characters`);
  return raw;
};

export const chatVars = {
  ...commonVars,
  PORT: { parse: port, default: '4003' },
  CHAT_DB_SCHEMA: { parse: schemaName, default: 'chat' },
  QUEUE_PREFIX: { parse: text, default: 'parley' },
  CHATBOT_URL: serviceUrl('CHATBOT_URL'),
  BILLING_URL: serviceUrl('BILLING_URL'),
  SERVICE_RESOLVE_INTERVAL_MS: serviceResolveInterval,
  // The providers' keys (src/models/, docs/adr/0039-the-model-layer.md): a provider without a key is
  // not offered, and with no key at all the chatbots answer in the labelled offline mode (quoted
  // knowledge passages, no cost).
  /** The key of OpenAI or of any OpenAI-compatible endpoint. */
  OPENAI_API_KEY: { parse: secret, optional: true },
  /** Any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio, the test fake). */
  OPENAI_BASE_URL: { parse: url(['http', 'https']), default: 'https://api.openai.com/v1' },
  /**
   * Set: the provider's name for the catalogue's default model, overriding its providerModel (e.g.
   * "llama3.1" on Ollama). Usage is still billed as the catalogue's default model.
   */
  OPENAI_MODEL: { parse: text, optional: true },
  /** Deadline of one answer from any provider, streamed or not, from request to last token. */
  OPENAI_TIMEOUT_MS: { parse: int(100, 600_000), default: '30000' },
  ANTHROPIC_API_KEY: { parse: secret, optional: true },
  ANTHROPIC_BASE_URL: { parse: url(['http', 'https']), default: 'https://api.anthropic.com' },
  GEMINI_API_KEY: { parse: secret, optional: true },
  GEMINI_BASE_URL: { parse: url(['http', 'https']), default: 'https://generativelanguage.googleapis.com' },
  /** The model catalogue (services/common/src/models/catalogue.ts); unset: the shipped defaults. */
  MODEL_CATALOGUE_FILE: { parse: text, optional: true },
  /** Longest visitor message, in characters. */
  MAX_MESSAGE_CHARS: { parse: int(1, 100_000), default: '4000' },
  /** Longest answer, in tokens (the model's max_tokens). */
  MAX_OUTPUT_TOKENS: { parse: int(1, 100_000), default: '800' },
  /** The whole tool loop of a chatbot with HTTP actions (every model call and action run of one answer). */
  TOOL_LOOP_DEADLINE_MS: { parse: int(1000, 600_000), default: '60000' },
  /** Knowledge in one prompt, in characters: all of it when it fits, else the best retrieved chunks up to this. */
  PROMPT_KNOWLEDGE_CHARS: { parse: int(100, 1_000_000), default: '12000' },
  /** Earlier turns of the conversation in one prompt, in characters (newest kept first). */
  HISTORY_CHARS: { parse: int(0, 1_000_000), default: '4000' },
  /** Messages one visitor (by IP) may send to one chatbot per minute. */
  CHAT_RATE_PER_VISITOR: { parse: int(1, 1_000_000), default: '20' },
  /** Messages one chatbot may receive per minute from all visitors together. */
  CHAT_RATE_PER_BOT: { parse: int(1, 10_000_000), default: '300' },
  /**
   * Signs the public chat's session ids (core/session-id.ts). The same on every chat instance
   * of a deployment, so any of them accepts the others' ids; the default is for development only.
   */
  SESSION_SECRET: { parse: signingSecret, default: DEV_SESSION_SECRET },
  /**
   * Signs the proof-of-work challenges (public-chat/proof-of-work.ts). The same on every chat
   * instance of a deployment, so any of them accepts a challenge another handed out; the default is
   * for development only.
   */
  ALTCHA_HMAC_KEY: { parse: signingSecret, default: DEV_ALTCHA_HMAC_KEY },
  /**
   * Encrypts the workspaces' own provider keys at rest (provider-keys/, AES-256-GCM): 32 bytes in
   * base64, the same on every chat instance; the default is for development only.
   */
  PROVIDER_KEY_ENCRYPTION_KEY: { parse: encryptionKey(DEV_PROVIDER_KEY_ENCRYPTION_KEY), default: DEV_PROVIDER_KEY_ENCRYPTION_KEY },
  /** During a rotation, the key before PROVIDER_KEY_ENCRYPTION_KEY: still read, never written (npm run reencrypt-provider-keys -w @parley/chat). */
  PROVIDER_KEY_PREVIOUS_ENCRYPTION_KEY: { parse: encryptionKey(DEV_PROVIDER_KEY_ENCRYPTION_KEY), optional: true },
  /** Telegram's Bot API root (docs/adr/0044-messaging-channels.md); a local fake's in tests and the end-to-end suite. */
  TELEGRAM_API_BASE: { parse: url(['http', 'https']), default: 'https://api.telegram.org' },
  /** Slack's Web API root (docs/adr/0057-slack-channel.md); a local fake's in tests and the end-to-end suite. */
  SLACK_API_BASE: { parse: url(['http', 'https']), default: 'https://slack.com/api' },
  /**
   * The operator's Slack app, for the "Add to Slack" install (docs/adr/0064-channels-for-operators.md):
   * its Client ID and Client Secret exchange the install's code with oauth.v2.access, and its Signing
   * Secret checks every installed workspace's events. All three, or the install is not offered.
   */
  SLACK_CLIENT_ID: { parse: secret, optional: true },
  SLACK_CLIENT_SECRET: { parse: secret, optional: true },
  SLACK_SIGNING_SECRET: { parse: secret, optional: true },
  /** Meta's Graph API root with its version, for WhatsApp, Messenger and Instagram (docs/adr/0056-meta-channels.md); a local fake's in tests and the end-to-end suite. */
  META_GRAPH_API_BASE: { parse: url(['http', 'https']), default: 'https://graph.facebook.com/v21.0' },
  /** Twilio's REST API root, for SMS (docs/adr/0070-sms-channel.md); a local fake's in tests and the end-to-end suite. */
  TWILIO_API_BASE: { parse: url(['http', 'https']), default: 'https://api.twilio.com' },
  /**
   * Email (docs/adr/0063-email-channel.md): the domain of the chatbots' inbound addresses
   * (`{random}@{domain}`), whose mail the operator's Mailgun routes forward to Parley's webhook.
   */
  EMAIL_INBOUND_DOMAIN: { parse: emailDomain, default: 'mail.parley.local' },
  /**
   * Email: the operator's SMTP server the answers go out through (the name the auth service uses for
   * its mail). Unset, each answer is written to MAIL_OUTBOX_DIR instead (the gateway's /dev/mail).
   */
  SMTP_URL: { parse: smtpUrl, default: '' },
  /** Email: another SMTP server for the chatbots' answers than SMTP_URL (a mail provider's for bulk, say); unset: SMTP_URL. */
  EMAIL_SMTP_URL: { parse: smtpUrl, default: '' },
  /** Email without SMTP_URL: where answers are written (the same folder as the auth service's mails). */
  MAIL_OUTBOX_DIR: { parse: text, default: '.data/mail-outbox' },
  /**
   * Email, development only: a local SMTP server on this port that takes mail for the chatbots'
   * inbound addresses and feeds it to the same inbound path as Mailgun's webhook. Unset: none.
   */
  EMAIL_SMTP_INBOUND_PORT: { parse: port, optional: true },
  /** Attempts of one message sent on a channel, the first included: a 429 or 5xx is tried again after the provider's retry_after or a doubling backoff. */
  CHANNEL_SEND_ATTEMPTS: { parse: int(1, 20), default: '5' },
  /** Deadline of one call to a channel's provider. */
  CHANNEL_TIMEOUT_MS: { parse: int(100, 60_000), default: '10000' },
  /** Deadline of calls to other services (chatbot, billing). */
  RPC_TIMEOUT_MS: { parse: int(1, 600_000), default: '5000' },
  /** How often a worker settles the credit holds whose answer's usage was lost, from the stored exchanges (ADR 37). */
  RECONCILE_HOLDS_MS: { parse: int(1000, 3_600_000), default: '60000' },
  /**
   * How long an answer's UsageRecorded and ChatbotInteraction wait for others to share their jobs
   * (ADR 29, ADR 51): under load, the longer the window, the fewer and larger the jobs.
   */
  EVENT_BATCH_WAIT_MS: { parse: int(0, 1000), default: '100' },
  /** Test cases one run answers at once (docs/adr/0050-quality-loop.md); each is a model call beside the visitors'. */
  TEST_RUN_CONCURRENCY: { parse: int(1, 64), default: '4' },
  /** Runs one chat instance answers at once. */
  TEST_RUNS_PER_INSTANCE: { parse: int(1, 64), default: '2' },
  /** How long after a chatbot's last change of knowledge, voice or model its automatic test run starts (debounced). */
  TEST_AUTO_RUN_DELAY_MS: { parse: int(0, 86_400_000), default: '60000' },
};

export type ChatConfig = ReturnType<typeof readChatConfig>;

export function readChatConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(chatVars, env);
}
