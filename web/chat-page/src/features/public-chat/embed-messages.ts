// What the widget (widget.js on the host page) and the embed page (/embed/{uniqueId} in its iframe)
// say to each other with postMessage. Plain data, no React: the widget bundles this file too.
// Each side checks who is talking before reading anything: the embed page accepts only its parent
// window, the widget only its own iframe from Parley's origin. Anything else, or any message that
// is not exactly one of these, is ignored.
//   parent → iframe  { type: 'parley:identify', visitor: { id?, name?, email?, userHash? } }  the host page's visitor
//   parent → iframe  { type: 'parley:open' }                              the panel was opened: focus the field
//   iframe → parent  { type: 'parley:ready' }                             listening (identify may be sent now)
//   iframe → parent  { type: 'parley:close' }                             the close button or Esc

/** The host page's own name for its visitor, as the owner's History shows it; the email pre-fills the lead form. */
export interface Visitor {
  id?: string;
  name?: string;
  email?: string;
  /** HMAC-SHA256 of id under the chatbot's identity secret, from the owner's server: the chat service verifies it. */
  userHash?: string;
}

export type EmbedMessage =
  { type: 'parley:identify'; visitor: Visitor } | { type: 'parley:open' } | { type: 'parley:ready' } | { type: 'parley:close' };

/** The longest visitor id or name the API accepts. */
export const MAX_VISITOR_FIELD_LENGTH = 200;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function visitorField(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed ? trimmed.slice(0, MAX_VISITOR_FIELD_LENGTH) : undefined;
}

/**
 * The visitor in `value` ({ id? or userId?, name?, email?, userHash? }; a numeric id is read as text,
 * each cut to 200 characters; a userHash other than 64 hex digits is dropped), or null when it names nobody.
 */
export function readVisitor(value: unknown): Visitor | null {
  if (!isRecord(value)) return null;
  const id = visitorField(value.id) ?? visitorField(value.userId);
  const userHash = typeof value.userHash === 'string' && /^[0-9a-fA-F]{64}$/.test(value.userHash) ? value.userHash : undefined;
  const name = visitorField(value.name);
  const email = typeof value.email === 'number' ? undefined : visitorField(value.email);
  if (!id && !name && !email) return null;
  const visitor: Visitor = {};
  if (id) visitor.id = id;
  if (name) visitor.name = name;
  if (email) visitor.email = email;
  if (id && userHash) visitor.userHash = userHash;
  return visitor;
}

/** The message in a MessageEvent's data, or null when it is not one of ours. */
export function readEmbedMessage(data: unknown): EmbedMessage | null {
  if (!isRecord(data)) return null;
  switch (data.type) {
    case 'parley:identify': {
      const visitor = readVisitor(data.visitor);
      return visitor ? { type: data.type, visitor } : null;
    }
    case 'parley:open':
    case 'parley:ready':
    case 'parley:close':
      return { type: data.type };
    default:
      return null;
  }
}
