// What the public chat page keeps in localStorage (docs/product.md, Public chat): the session id per chatbot, and the
// messages per chatbot and session, so a reload shows the same conversation. Storage can throw
// (private mode, quota, disabled), and a broken storage must only mean "nothing remembered".
// An answer keeps the sources it cited; the chatbot's welcome is kept as the first message (marked
// `welcome`) once the visitor has written, so a restored conversation starts as it was seen.
// An answer the server stored keeps its id and the visitor's thumbs; conversations saved
// before that simply have neither, and load as they were. While a person answers (handoff), their
// replies (agent, with their name) and the product's notices (system) are kept like answers, by the
// stream's message id; an answer that offered a person keeps `offerHandoff`.
import { readSources, type ChatSource } from '../../components/citations/chat-sources';
import { readConfirmation, type ActionConfirmation } from './api/public-chat-api';

export type ChatRole = 'user' | 'assistant' | 'agent' | 'system';
/** A visitor's thumbs on an answer, in the feedback API's words. */
export type ChatRating = 'up' | 'down';

export function isChatRating(value: unknown): value is ChatRating {
  return value === 'up' || value === 'down';
}

export interface ChatMessage {
  role: ChatRole;
  content: string;
  /** An answer's citations, when it has any. */
  sources?: ChatSource[];
  /** The stored answer's id: only an answer that has one can be rated. */
  messageId?: string;
  /** The visitor's thumbs on this answer, as last chosen. */
  rating?: ChatRating;
  /** The chatbot's welcome: shown, never sent, not counted as a message. */
  welcome?: true;
  /** An agent's name (agent messages). */
  authorName?: string;
  /** The answer offered the visitor a person (answers only). */
  offerHandoff?: true;
  /** The answer asks the visitor to confirm an action: the stored call's card, until decided (answers only). */
  confirmation?: ActionConfirmation & { decided?: 'confirm' | 'cancel' };
}

const ROLES: readonly string[] = ['user', 'assistant', 'agent', 'system'];

const SESSION_ID_LENGTH = 13;
const SESSION_ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

export function sessionIdKey(uniqueId: string): string {
  return `chatSessionId_${uniqueId}`;
}

export function messagesKey(uniqueId: string, sessionId: string): string {
  return `chatMessages_${uniqueId}_${sessionId}`;
}

/** A random 13-character session id for a visitor the server has not seen yet. */
export function generateSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SESSION_ID_LENGTH));
  return Array.from(bytes, (byte) => SESSION_ID_ALPHABET[byte % SESSION_ID_ALPHABET.length]).join('');
}

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Without storage the conversation simply does not survive a reload.
  }
}

function remove(key: string): void {
  try {
    localStorage.removeItem(key);
  } catch {
    // Nothing stored, nothing to remove.
  }
}

/** The stored session id of this chatbot, or a new one (stored at once, so every tab shares it). */
export function loadSessionId(uniqueId: string): string {
  const stored = read(sessionIdKey(uniqueId))?.trim();
  if (stored) return stored;
  const created = generateSessionId();
  write(sessionIdKey(uniqueId), created);
  return created;
}

export function saveSessionId(uniqueId: string, sessionId: string): void {
  write(sessionIdKey(uniqueId), sessionId);
}

function isChatMessage(value: unknown): value is ChatMessage {
  if (typeof value !== 'object' || value === null) return false;
  const { role, content } = value as Record<string, unknown>;
  return typeof role === 'string' && ROLES.includes(role) && typeof content === 'string';
}

/** A message as the page keeps it: only the fields it knows, no empty source list, no rating without an id. */
export function toChatMessage({
  role,
  content,
  sources,
  messageId,
  rating,
  welcome,
  authorName,
  offerHandoff,
  confirmation,
}: ChatMessage): ChatMessage {
  if (role === 'user') return { role, content };
  if (role === 'agent' || role === 'system') {
    const message: ChatMessage = { role, content };
    if (typeof messageId === 'string' && messageId) message.messageId = messageId;
    if (role === 'agent' && typeof authorName === 'string' && authorName) message.authorName = authorName;
    return message;
  }
  if (welcome === true) return { role, content, welcome };
  const message: ChatMessage = { role, content };
  const cited = readSources(sources);
  if (cited.length > 0) message.sources = cited;
  if (typeof messageId === 'string' && messageId) {
    message.messageId = messageId;
    if (isChatRating(rating)) message.rating = rating;
  }
  if (offerHandoff === true) message.offerHandoff = true;
  const card = readConfirmation(confirmation);
  if (card) {
    const decided = confirmation?.decided;
    message.confirmation = decided === 'confirm' || decided === 'cancel' ? { ...card, decided } : card;
  }
  return message;
}

/** The stored messages of a session; anything unreadable is dropped rather than shown. */
export function loadMessages(uniqueId: string, sessionId: string): ChatMessage[] {
  const raw = read(messagesKey(uniqueId, sessionId));
  if (!raw) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return [];
    const messages = parsed.filter(isChatMessage).map(toChatMessage);
    // A welcome counts only as the first bubble.
    return messages.filter((message, index) => !message.welcome || index === 0);
  } catch {
    return [];
  }
}

export function saveMessages(uniqueId: string, sessionId: string, messages: ChatMessage[]): void {
  if (messages.length === 0) remove(messagesKey(uniqueId, sessionId));
  else write(messagesKey(uniqueId, sessionId), JSON.stringify(messages));
}

export function clearMessages(uniqueId: string, sessionId: string): void {
  remove(messagesKey(uniqueId, sessionId));
}

/** What the page remembers of a handoff in progress: the state and the last streamed message id, to reconnect from. */
export interface StoredHandoff {
  status: 'waiting' | 'human';
  agentName: string | null;
  lastEventId: string | null;
}

export function handoffKey(uniqueId: string, sessionId: string): string {
  return `chatHandoff_${uniqueId}_${sessionId}`;
}

export function loadHandoff(uniqueId: string, sessionId: string): StoredHandoff | null {
  const raw = read(handoffKey(uniqueId, sessionId));
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { status, agentName, lastEventId } = parsed as Record<string, unknown>;
    if (status !== 'waiting' && status !== 'human') return null;
    return {
      status,
      agentName: typeof agentName === 'string' && agentName ? agentName : null,
      lastEventId: typeof lastEventId === 'string' && lastEventId ? lastEventId : null,
    };
  } catch {
    return null;
  }
}

export function saveHandoff(uniqueId: string, sessionId: string, handoff: StoredHandoff | null): void {
  if (handoff) write(handoffKey(uniqueId, sessionId), JSON.stringify(handoff));
  else remove(handoffKey(uniqueId, sessionId));
}
