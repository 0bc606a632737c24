// The gateway's environment, validated at start (a bad value names the variable and stops the process).
import { resolve } from 'node:path';
import { commonVars, ConfigError, int, port, readConfig, serviceResolveInterval, serviceUrl, text, url } from '@parley/common/config.ts';

const repoRoot = new URL('../../', import.meta.url).pathname;

/** A size in the form body-parser understands: "100kb", "1mb", "512" (bytes). */
const byteSize = (raw: string, name: string): string => {
  if (!/^\d+(\.\d+)?\s*(b|kb|mb)?$/i.test(raw)) throw new ConfigError(`${name} must be a size such as 100kb or 1mb, got "${raw}"`);
  return raw;
};

const path = (raw: string): string => resolve(repoRoot, raw);

const webhookSecret = (raw: string, name: string): string => {
  // Stripe's signing secrets start with whsec_; whitespace would be a copy-and-paste mistake that
  // makes every signature fail.
  if (!/^whsec_\S+$/.test(raw))
    throw new ConfigError(`${name} must be a Stripe webhook signing secret (whsec_... without spaces); the value is not shown`);
  return raw;
};

export const gatewayVars = {
  PORT: { parse: port, default: '8080' },
  // /metrics, on a port of its own: the public port faces the internet, this one only the scrapers.
  METRICS_PORT: { parse: port, default: '9091' },
  INSTANCE_ID: commonVars.INSTANCE_ID,
  OTEL_EXPORTER_OTLP_ENDPOINT: commonVars.OTEL_EXPORTER_OTLP_ENDPOINT,
  // "production" hides the GraphQL schema (no introspection, no field suggestions in errors).
  NODE_ENV: { parse: text, default: 'development' },
  AUTH_URL: serviceUrl('AUTH_URL'),
  BILLING_URL: serviceUrl('BILLING_URL'),
  CHATBOT_URL: serviceUrl('CHATBOT_URL'),
  CHAT_URL: serviceUrl('CHAT_URL'),
  SERVICE_RESOLVE_INTERVAL_MS: serviceResolveInterval,
  PUBLIC_URL: { parse: url(['http', 'https']), default: 'http://localhost:8080' },
  /**
   * The operator's Slack app's Client ID: set, the Slack card offers "Add to Slack" (chat holds the
   * client secret and signing secret; docs/adr/0064-channels-for-operators.md).
   */
  SLACK_CLIENT_ID: { parse: text, optional: true },
  /** Slack's authorize page; a local fake's in tests and the end-to-end suite. */
  SLACK_AUTHORIZE_URL: { parse: url(['http', 'https']), default: 'https://slack.com/oauth/v2/authorize' },
  MEDIA_DIR: { parse: path, default: '.data/media' },
  // Where auth writes mails when no SMTP server is configured (development); served at /dev/mail.
  MAIL_OUTBOX_DIR: { parse: path, default: '.data/mail-outbox' },
  WEB_DIST_DIR: { parse: path, default: 'web/dist' },
  // How many reverse proxies in front of the gateway may set X-Forwarded-For (0: use the socket address).
  TRUST_PROXY: { parse: int(0, 10), default: '0' },
  RPC_TIMEOUT_MS: { parse: int(100, 120_000), default: '5000' },
  // Deadline of one public chat answer (the language model may take a while), streamed or not.
  CHAT_TIMEOUT_MS: { parse: int(100, 600_000), default: '60000' },
  // How often a live stream (the inbox's, a visitor's) sends a `: ping` comment, so proxies and
  // browsers keep an idle one open and a gone client is noticed.
  SSE_PING_MS: { parse: int(50, 600_000), default: '15000' },
  BODY_LIMIT: { parse: byteSize, default: '100kb' },
  // Largest picture upload read from a request; the chatbot service enforces its own limit too.
  MAX_PICTURE_BYTES: { parse: int(1, 100 * 1024 * 1024), default: String(2 * 1024 * 1024) },
  // Largest knowledge file (PDF, DOCX, ...) read from a request (413 "File too large" past it); the
  // chatbot service reads the same variable and enforces it too.
  MAX_UPLOAD_BYTES: { parse: int(1, 200 * 1024 * 1024), default: String(20 * 1024 * 1024) },
  // How many members and pending invitations a workspace on each plan may have (docs/adr/0030-workspaces.md).
  SEATS_FREE: { parse: int(1, 10_000), default: '1' },
  SEATS_PRO: { parse: int(1, 10_000), default: '5' },
  // The developer API (docs/adr/0033-developer-api.md): how long a key check is kept (a revoked key
  // is forgotten at once when auth announces it; this bounds a lost announcement), and how many calls
  // a key may make per window.
  API_KEY_CACHE_MS: { parse: int(0, 60_000), default: '5000' },
  API_RATE_LIMIT: { parse: int(1, 1_000_000), default: '600' },
  API_RATE_WINDOW_MS: { parse: int(1000, 3_600_000), default: '60000' },
  // Wrong keys: how long a secret auth refused is refused without asking again (safe: a refused
  // secret never starts working), and how many refused key checks one client address may cause per
  // window before it is answered 429 without asking auth.
  API_KEY_REFUSAL_CACHE_MS: { parse: int(0, 3_600_000), default: '30000' },
  API_KEY_FAILURES_PER_IP: { parse: int(1, 1_000_000), default: '20' },
  API_KEY_FAILURE_WINDOW_MS: { parse: int(1000, 3_600_000), default: '60000' },
  // How often every held stream (the inbox's events, a key's streamed answer) asks auth again whether
  // its access holds, beside the announced changes that end it at once (ADR 35): the bound when an
  // announcement is lost.
  ACCESS_RECHECK_MS: { parse: int(1000, 3_600_000), default: '60000' },
  // The model catalogue (services/common/src/models/catalogue.ts), the same file the services read; unset: the shipped defaults.
  MODEL_CATALOGUE_FILE: { parse: text, optional: true },
  LOG_LEVEL: commonVars.LOG_LEVEL,
  // Signs the gateway's calls to the services (docs/adr/0012-service-to-service-trust.md).
  SERVICE_SECRET: commonVars.SERVICE_SECRET,
  // Verified Stripe events are handed to billing through a queue in Redis.
  REDIS_URL: commonVars.REDIS_URL,
  QUEUE_PREFIX: { parse: text, default: 'parley' },
  // Signing secret of the Stripe webhook endpoint. Unset: a random secret per process, so only this
  // gateway's own test-mode checkout events verify (real Stripe deliveries are refused).
  STRIPE_WEBHOOK_SECRET: { parse: webhookSecret, optional: true },
  // How the gateway stops: SHUTDOWN_DRAIN_MS, SHUTDOWN_TIMEOUT_MS (its streamed answers finish first).
  SHUTDOWN_DRAIN_MS: commonVars.SHUTDOWN_DRAIN_MS,
  SHUTDOWN_TIMEOUT_MS: commonVars.SHUTDOWN_TIMEOUT_MS,
};

export type GatewayConfig = ReturnType<typeof readGatewayConfig>;

export function readGatewayConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(gatewayVars, env);
}
