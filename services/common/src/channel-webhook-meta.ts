// Meta's signed webhook as both the gateway and chat check it (docs/adr/0056-meta-channels.md,
// docs/adr/0069-slack-and-meta-checked-at-the-edge.md): WhatsApp Cloud API, Messenger and Instagram
// post `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body under the app secret>`, and their
// bodies carry text messages (and WhatsApp's status callbacks) in each one's own shape.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from './rpc-errors.ts';

export const SIGNATURE_MISSING = 'The X-Hub-Signature-256 header is missing.';
export const SIGNATURE_REFUSED = 'The signature does not match.';
export const VERIFY_TOKEN_REFUSED = 'The verify token does not match.';

export const META_CHANNELS = ['whatsapp', 'messenger', 'instagram'] as const;
export type MetaChannelName = (typeof META_CHANNELS)[number];
export const isMetaChannel = (channel: string): channel is MetaChannelName => (META_CHANNELS as readonly string[]).includes(channel);

export const BODY_NOT_META = 'The body is not a Meta webhook event.';

/** True when `header` is `sha256=` and the HMAC-SHA256 of `body` under `appSecret`; constant time over two 32-byte digests. */
export function signatureMatches(header: string, body: Uint8Array, appSecret: string): boolean {
  const match = /^sha256=([a-f0-9]{64})$/i.exec(header.trim());
  if (!match || !appSecret) return false;
  const expected = createHmac('sha256', appSecret).update(body).digest();
  const actual = Buffer.from(match[1], 'hex');
  return actual.length === expected.length && timingSafeEqual(expected, actual);
}

/** A channel user's text message from Meta's webhook body. */
export interface MetaMessage {
  messageId: string;
  /** The account it was written to (WhatsApp's phone-number id, the page or Instagram account id). */
  accountId: string;
  /** Who wrote: the WhatsApp number (wa_id), the page-scoped or Instagram-scoped user id. */
  from: string;
  name: string;
  text: string;
}

/** A WhatsApp status callback about a message Parley sent. */
export interface MetaStatus {
  messageId: string;
  accountId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  error: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);
const str = (v: unknown, max = 200) => (typeof v === 'string' ? v.slice(0, max) : '');
/** Meta batches; a body past this many entries is read no further. */
const MAX_EVENTS = 100;
const STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);
const OBJECTS: Record<MetaChannelName, string> = { whatsapp: 'whatsapp_business_account', messenger: 'page', instagram: 'instagram' };

/** The body's text messages and status callbacks; anything else (reactions, echoes, media) is left. A body that is no Meta event is INVALID_ARGUMENT. */
export function parseMetaWebhook(
  channel: MetaChannelName,
  body: Uint8Array,
  maxText: number,
): { messages: MetaMessage[]; statuses: MetaStatus[] } {
  let event: unknown;
  try {
    event = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw invalid(BODY_NOT_META);
  }
  if (!isObject(event) || event.object !== OBJECTS[channel] || !Array.isArray(event.entry)) throw invalid(BODY_NOT_META);
  const messages: MetaMessage[] = [];
  const statuses: MetaStatus[] = [];
  for (const entry of list(event.entry).slice(0, MAX_EVENTS)) {
    if (channel === 'whatsapp') {
      for (const change of list(entry.changes).slice(0, MAX_EVENTS)) {
        const value = isObject(change.value) ? change.value : {};
        if (change.field !== 'messages') continue;
        const accountId = str(isObject(value.metadata) ? value.metadata.phone_number_id : '');
        const names = new Map(list(value.contacts).map((c) => [str(c.wa_id), str(isObject(c.profile) ? c.profile.name : '')]));
        for (const m of list(value.messages).slice(0, MAX_EVENTS)) {
          const text = isObject(m.text) ? m.text.body : undefined;
          if (m.type !== 'text' || typeof text !== 'string' || !str(m.id) || !/^\d{1,30}$/.test(str(m.from))) continue;
          messages.push({
            messageId: str(m.id),
            accountId,
            from: str(m.from),
            name: names.get(str(m.from)) ?? '',
            text: text.slice(0, maxText),
          });
        }
        for (const s of list(value.statuses).slice(0, MAX_EVENTS)) {
          const status = str(s.status);
          if (!STATUSES.has(status) || !str(s.id)) continue;
          const [error] = list(s.errors);
          const why = error ? `${error.code ?? ''} ${str(error.title) || str(error.message)}`.trim() : '';
          statuses.push({ messageId: str(s.id), accountId, status: status as MetaStatus['status'], error: why.slice(0, 300) });
        }
      }
      continue;
    }
    // Messenger and Instagram: entry.messaging[], the page's (or account's) own echoes left.
    const accountId = str(entry.id);
    for (const m of list(entry.messaging).slice(0, MAX_EVENTS)) {
      const message = isObject(m.message) ? m.message : null;
      const from = str(isObject(m.sender) ? m.sender.id : '');
      if (!message || message.is_echo === true || typeof message.text !== 'string' || !str(message.mid) || !/^\d{1,30}$/.test(from))
        continue;
      messages.push({ messageId: str(message.mid), accountId, from, name: '', text: message.text.slice(0, maxText) });
    }
  }
  return { messages, statuses };
}
