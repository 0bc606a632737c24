// Meta's three messaging channels (docs/adr/0056-meta-channels.md): WhatsApp Cloud API, Messenger
// and Instagram share one scheme — the owner's app in Meta's console posts to Parley's webhook, a GET
// handshake with the verify token Parley gave the owner (hub.verify_token, its hub.challenge echoed),
// and every POST signed `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body under the app
// secret>`. What differs is here: each one's text limit, its webhook body, and WhatsApp's 24-hour
// customer service window (free text only within 24 hours of the user's last message; after that a
// template would be needed, which Parley does not send).
// The signature and the bodies are read by the gateway too, which checks Meta's webhooks by itself (ADR 69).
export {
  BODY_NOT_META,
  META_CHANNELS,
  isMetaChannel,
  parseMetaWebhook,
  signatureMatches,
  type MetaChannelName,
  type MetaMessage,
  type MetaStatus,
} from '@parley/common/channel-webhook-meta.ts';
import type { MetaChannelName } from '@parley/common/channel-webhook-meta.ts';

/** How the owner and the logs name each; the longest text message each takes, in characters. */
export const META_CHANNEL_RULES: Record<MetaChannelName, { label: string; maxText: number; customerWindowHours: number | null }> = {
  whatsapp: { label: 'WhatsApp', maxText: 4096, customerWindowHours: 24 },
  messenger: { label: 'Messenger', maxText: 2000, customerWindowHours: null },
  instagram: { label: 'Instagram', maxText: 1000, customerWindowHours: null },
};

export const WINDOW_CLOSED =
  "Not sent: this WhatsApp user's last message is more than 24 hours old, and outside WhatsApp's customer service window only an approved template message can be sent.";
export const META_RECIPIENT_INVALID = 'The recipient must be the id (digits) of a user who wrote to this account.';
/** A recipient (a WhatsApp number, a page- or Instagram-scoped user id) is decimal digits. */
export const metaRecipientValid = (to: string) => /^\d{1,30}$/.test(to);
