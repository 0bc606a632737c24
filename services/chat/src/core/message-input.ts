// Validation of a visitor's message at the RPC boundary, with the messages visitors see. Everything
// here comes from the public internet (through the gateway), so it is bounded before use.
import { parseUniqueId } from '@parley/common/public-chatbot.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { SessionIds } from './session-id.ts';
import { parseVisitorSite, type VisitorSite } from './visitor-site.ts';
import { withoutControlCharacters } from '@parley/common/control-characters.ts';

export const MESSAGE_REQUIRED = 'Message is required';
export const messageTooLong = (maxChars: number) => `Message is too long (maximum ${maxChars.toLocaleString('en-US')} characters)`;
export const unknownModel = (model: string) => `Unknown model: ${model}`;
export const MAX_VISITOR_FIELD_CHARS = 200;
export const HISTORY_ROLE_INVALID = 'Each earlier message must have the role "user" or "assistant"';
export const MAX_HISTORY_TURNS = 200;
export const historyTooLong = `The conversation is too long (at most ${MAX_HISTORY_TURNS} earlier messages)`;
export const visitorIdTooLong = `Visitor id is too long (maximum ${MAX_VISITOR_FIELD_CHARS} characters)`;
export const visitorNameTooLong = `Visitor name is too long (maximum ${MAX_VISITOR_FIELD_CHARS} characters)`;
export const visitorEmailTooLong = `Visitor email is too long (maximum ${MAX_VISITOR_FIELD_CHARS} characters)`;

/**
 * The visitor's `model` field, still checked as the public contract has it (the chat page always
 * sends gpt-4o-mini), and then ignored: a chatbot answers with the model its owner chose, and is
 * billed at that model's price (models/chat-models.ts).
 */
export const KNOWN_MODELS = ['gpt-4o-mini'] as const;
export type KnownModel = (typeof KNOWN_MODELS)[number];
export const DEFAULT_MODEL: KnownModel = 'gpt-4o-mini';

const MAX_MODEL_ECHO_CHARS = 50;
const MAX_IP_CHARS = 64;
const MAX_USER_AGENT_CHARS = 512;

export interface RawMessageInput {
  uniqueId: string;
  sessionId: string;
  message: string;
  model: string;
  clientIp: string;
  userAgent: string;
  /** Where it came from and who sent it (ADR 19); absent reads as empty (Parley's own page, nothing told, no proof). */
  siteHost?: string;
  embedded?: boolean;
  visitorId?: string;
  visitorName?: string;
  visitorEmail?: string;
  /** Parley.identify's userHash: HMAC-SHA256 of visitorId under the chatbot's identity secret (public-chat/visitor-identity.ts). */
  visitorUserHash?: string;
  proofOfWork?: string;
  /** The developer API's key the message came through; absent or empty for a visitor. */
  apiKeyId?: string;
  /** The client's own history (the OpenAI-compatible call), oldest first. */
  history?: readonly { role: string; content: string }[];
  /** The visitor's answer to a confirmation card: the pending call's id and confirm or cancel. */
  confirmCallId?: string;
  confirmDecision?: string;
}

export interface MessageInput {
  /** Trimmed and well-formed (parseUniqueId): the only form that names a Redis key or reaches the chatbot service. */
  uniqueId: string;
  /** The visitor's session id when this service issued it, else a new one (session-id.ts). */
  sessionId: string;
  message: string;
  model: KnownModel;
  /** Empty strings become null: "unknown". */
  clientIp: string | null;
  userAgent: string | null;
  /** The visitor's session id was not this service's: the message opens a new conversation. */
  newConversation: boolean;
  /** Where the request came from (visitor-site.ts). */
  site: VisitorSite;
  /** What the host page told the widget about its visitor (kept with a new conversation); null when not told. */
  visitorId: string | null;
  visitorName: string | null;
  /** The visitor's email as a developer API client told it; null when not told. */
  visitorEmail: string | null;
  /** The userHash told with visitorId, when it has a hash's shape (64 hex digits, lower case); null otherwise. Not yet checked. */
  visitorUserHash: string | null;
  /** The visitor's Confirm or Cancel of a pending action call (pending-actions.ts), not yet checked; null for a plain message. */
  confirmation: { callId: string; decision: 'confirm' | 'cancel' } | null;
  /** The solved proof-of-work challenge (proof-of-work.ts); empty when none was sent. */
  proofOfWork: string;
  /** The developer API's key the message came through, whose answer's cost it is (UsageRecorded); null for a visitor of the public chat. */
  apiKeyId: string | null;
  /** The client's own history when it sent one; the prompt's history on a channel whose history is the client's (ADR 40). */
  clientHistory: { role: 'user' | 'assistant'; content: string }[] | null;
}

export interface MessageBounds {
  maxMessageChars: number;
}

/** Characters as a reader counts them (code points), so an emoji or a CJK character counts once. */
export const charCount = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

export function parseMessage(raw: string, bounds: MessageBounds): string {
  const message = raw.trim();
  if (!message) throw invalid(MESSAGE_REQUIRED);
  if (message.length > bounds.maxMessageChars && charCount(message) > bounds.maxMessageChars)
    throw invalid(messageTooLong(bounds.maxMessageChars));
  return message;
}

/** An empty model means the default; anything else must be one the server knows. */
export function parseModel(raw: string): KnownModel {
  const model = raw.trim();
  if (!model) return DEFAULT_MODEL;
  if (!(KNOWN_MODELS as readonly string[]).includes(model)) {
    const shown = model.length > MAX_MODEL_ECHO_CHARS ? `${model.slice(0, MAX_MODEL_ECHO_CHARS)}…` : model;
    throw invalid(unknownModel(shown.replace(/[^\x20-\x7e…]/g, '?')));
  }
  return model as KnownModel;
}

/** The visitor's session id when this service issued it; anything else (empty, made up, forged) gets a new one. */
export function parseSessionId(raw: string, ids: SessionIds): string {
  return ids.accept(raw) ?? ids.issue();
}

const bounded = (raw: string, max: number): string | null => {
  // Control characters have no place in an address or a browser name, and must not reach logs or pages.
  const value = withoutControlCharacters(raw).trim();
  if (!value) return null;
  return value.length > max ? value.slice(0, max) : value;
};

/** The developer API's key a message came through, as the gateway tells it; empty is none (a visitor of the public chat). */
export const parseApiKeyId = (raw: string | undefined): string | null => bounded(raw ?? '', 100);

/** The visitor's address as the chat counts it (rate limits, the conversation, feedback); empty is unknown. */
export const parseClientIp = (raw: string): string | null => bounded(raw, MAX_IP_CHARS);

/**
 * What the host page says about its visitor (Parley.identify): control characters are stripped
 * (a name pasted with a line break is still that name, and nothing invisible reaches the owner's
 * history or the export), then trimmed; past 200 characters it is refused rather than cut, since a
 * cut id could name someone else. Empty is "not told".
 */
export function parseVisitorField(raw: string | undefined, tooLong: string): string | null {
  const value = withoutControlCharacters(raw ?? '').trim();
  if (!value) return null;
  if (value.length > MAX_VISITOR_FIELD_CHARS && charCount(value) > MAX_VISITOR_FIELD_CHARS) throw invalid(tooLong);
  return value;
}

/** A userHash as the owner's server writes it (64 hex digits, either case); anything else is no hash: the visitor is then unverified, never refused. */
export const parseUserHash = (raw: string | undefined): string | null => {
  const value = (raw ?? '').trim();
  return /^[0-9a-fA-F]{64}$/.test(value) ? value.toLowerCase() : null;
};

/** Checked in this order: a bad message is INVALID_ARGUMENT even for an unknown chatbot. */
export const CONFIRM_DECISION_INVALID = 'confirmDecision must be confirm or cancel';

/** A card's answer: both fields or neither; the id's shape is checked where it is read. */
export function parseConfirmation(callId: string | undefined, decision: string | undefined): MessageInput['confirmation'] {
  if (!callId && !decision) return null;
  if (decision !== 'confirm' && decision !== 'cancel') throw invalid(CONFIRM_DECISION_INVALID);
  if (!callId || callId.length > 64) throw invalid('confirmCallId is required with confirmDecision');
  return { callId, decision };
}

export function parseMessageInput(raw: RawMessageInput, bounds: MessageBounds, ids: SessionIds): MessageInput {
  const message = parseMessage(raw.message, bounds);
  const model = parseModel(raw.model);
  const visitorId = parseVisitorField(raw.visitorId, visitorIdTooLong);
  const visitorName = parseVisitorField(raw.visitorName, visitorNameTooLong);
  const visitorEmail = parseVisitorField(raw.visitorEmail, visitorEmailTooLong);
  const uniqueId = parseUniqueId(raw.uniqueId);
  const continued = ids.accept(raw.sessionId);
  return {
    uniqueId,
    message,
    model,
    sessionId: continued ?? ids.issue(),
    newConversation: continued === null,
    clientIp: parseClientIp(raw.clientIp),
    userAgent: bounded(raw.userAgent, MAX_USER_AGENT_CHARS),
    site: parseVisitorSite(raw),
    visitorId,
    visitorName,
    visitorEmail,
    visitorUserHash: parseUserHash(raw.visitorUserHash),
    confirmation: parseConfirmation(raw.confirmCallId, raw.confirmDecision),
    proofOfWork: raw.proofOfWork ?? '',
    apiKeyId: parseApiKeyId(raw.apiKeyId),
    clientHistory: parseClientHistory(raw.history, bounds),
  };
}

/**
 * The client's earlier turns: user and assistant messages only, each within the message bound (the
 * prompt's history budget then keeps the most recent). None given: null (the stored conversation's).
 */
export function parseClientHistory(
  raw: RawMessageInput['history'],
  bounds: MessageBounds,
): { role: 'user' | 'assistant'; content: string }[] | null {
  if (!raw || raw.length === 0) return null;
  if (raw.length > MAX_HISTORY_TURNS) throw invalid(historyTooLong);
  return raw.map(({ role, content }) => {
    if (role !== 'user' && role !== 'assistant') throw invalid(HISTORY_ROLE_INVALID);
    if (content.length > bounds.maxMessageChars && charCount(content) > bounds.maxMessageChars)
      throw invalid(messageTooLong(bounds.maxMessageChars));
    return { role, content };
  });
}
