// The live inbox as members read it (docs/adr/0034-humans-in-the-loop.md): the chat service's inbox
// rows, conversations and actions, for GraphQL (resolvers/inbox.ts) and the REST stream
// (rest.ts), which sends the same InboxItem as JSON. The chat service decides the plan
// (pro only), ownership and the moves; the gateway checks what it can see itself first (ids that are
// not ids, empty text, a missing client message id), so such input is a clear 4xx whatever the service.
import type { ChatMessage, InboxItem, Lead } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { Code, ConnectError, invalid, notFound } from '@parley/common/rpc-errors.ts';
import { isoDate } from '../../http/dates.ts';
import type { Clients } from '../../http/clients.ts';
import { answerSources, answeringModelView, type AnswerSourceView, type AnsweringModelView } from '../conversations/conversations.ts';
import type { Member } from '../../access/members.ts';
import { isUuid } from '@parley/common/ids.ts';
import { CONVERSATION_NOT_FOUND } from '@parley/common/not-found.ts';

export { CONVERSATION_NOT_FOUND };

export const CONTENT_EMPTY = 'Write something first';
export const CLIENT_MESSAGE_ID_INVALID = 'clientMessageId must be a UUID';
/** What an agent without a display name is called where the visitor sees it (never their email). */
export const UNNAMED_AGENT = 'A team member';

export type HandoffStatus = 'BOT' | 'WAITING' | 'HUMAN' | 'CLOSED';
export type InboxMessageRole = 'user' | 'assistant' | 'system' | 'agent' | 'note';

export interface InboxItemView {
  conversationId: string;
  chatbotId: string;
  status: HandoffStatus;
  agentName: string | null;
  assigneeId: string | null;
  waitingSince: string | null;
  visitorName: string | null;
  visitorEmail: string | null;
  lastMessage: string | null;
  lastMessageAt: string | null;
  messageCount: number;
  /** The visitor's own newest message (at most 200 characters), what the rows preview; null without one. */
  lastVisitorMessage: string | null;
  /** The verified visitor's user id; null when unverified. */
  verifiedUserId: string | null;
  /** web, or the messaging channel it came from (telegram), as History names it. */
  channel: string;
  /** Why the visitor asked for a person (a reason code, docs/adr/0065-reason-codes.md); null for a request made before reasons were kept. */
  reason: string | null;
}

export interface InboxMessageView {
  id: string;
  role: InboxMessageRole;
  content: string;
  authorName: string | null;
  timestamp: string | null;
  /** What an answer cited, in the order its [n] markers number them; [] for every other message. */
  sources: AnswerSourceView[];
  /** The model that gave a model's answer; null for every other message (and on the live stream). */
  model: AnsweringModelView | null;
  /** The chatbot's chosen model failed before its first token and `model` is its fallback. */
  fallback: boolean;
}

export interface InboxLeadView {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  consented: boolean;
  source: string;
  createdAt: string | null;
  /** web, or the messaging channel the visitor wrote from (telegram). */
  channel: string;
  /** The visitor's identity on that channel (a Telegram chat id); null for the web. */
  channelContact: string | null;
}

export interface InboxConversationView {
  item: InboxItemView;
  /** The visitor's session, what the conversation's call logs are read by. */
  sessionId: string;
  messages: InboxMessageView[];
  summary: string | null;
  lead: InboxLeadView | null;
}

/** A conversation id as the chat service writes them (a UUID); anything else names none. */
export function conversationId(raw: string): string {
  const id = raw.trim();
  if (!isUuid(id)) throw notFound(CONVERSATION_NOT_FOUND);
  return id.toLowerCase();
}

function clientMessageId(raw: string): string {
  const id = raw.trim();
  if (!isUuid(id)) throw invalid(CLIENT_MESSAGE_ID_INVALID);
  return id.toLowerCase();
}

/** A reply or note: not blank (the chat service checks its length). */
function content(raw: string): string {
  if (!raw.trim()) throw invalid(CONTENT_EMPTY);
  return raw;
}

const STATUSES: Record<string, HandoffStatus> = { bot: 'BOT', waiting: 'WAITING', human: 'HUMAN', closed: 'CLOSED' };
const ROLES = new Set<string>(['user', 'assistant', 'system', 'agent', 'note']);

export function inboxItemView(item: InboxItem | undefined): InboxItemView {
  if (!item) throw new ConnectError('chat service returned no inbox item', Code.Internal);
  const status = STATUSES[item.state?.status ?? ''];
  if (!status) throw new ConnectError(`chat service returned the handoff status ${item.state?.status}`, Code.Internal);
  return {
    conversationId: item.conversationId,
    chatbotId: item.chatbotId,
    status,
    agentName: item.state?.agentName || null,
    assigneeId: item.assigneeId || null,
    waitingSince: isoDate(item.state?.waitingSince),
    visitorName: item.visitorName || null,
    visitorEmail: item.visitorEmail || null,
    lastMessage: item.lastMessage || null,
    lastMessageAt: isoDate(item.lastMessageAt),
    messageCount: item.messageCount,
    lastVisitorMessage: item.lastVisitorMessage || null,
    verifiedUserId: item.verifiedUserId || null,
    channel: item.channel || 'web',
    reason: item.reason || null,
  };
}

export function inboxMessageView(m: ChatMessage | undefined): InboxMessageView {
  if (!m) throw new ConnectError('chat service returned no message', Code.Internal);
  return {
    id: m.id,
    // A role this gateway does not know yet is shown as the product's own line, never dropped.
    role: ROLES.has(m.role) ? (m.role as InboxMessageRole) : 'system',
    content: m.content,
    authorName: m.authorName || null,
    timestamp: isoDate(m.timestamp),
    sources: answerSources(m.sources),
    model: answeringModelView(m.answeredBy),
    fallback: m.fallback,
  };
}

const leadView = (l: Lead): InboxLeadView => ({
  id: l.id,
  name: l.name || null,
  email: l.email || null,
  phone: l.phone || null,
  consented: l.consented,
  source: l.source,
  createdAt: isoDate(l.createdAt),
  channel: l.channel || 'web',
  channelContact: l.channelContact || null,
});

/** The signed-in member as the chat service records who acted: their id and display name. */
export const agentOf = (m: Member) => ({ id: m.user.id, name: m.user.name.trim() || UNNAMED_AGENT });

/** The inbox; `reason` keeps one reason code's conversations (the chat service checks it: INVALID_ARGUMENT otherwise). */
export async function loadInbox(
  clients: Clients,
  m: Member,
  reason?: string,
): Promise<{ waiting: InboxItemView[]; open: InboxItemView[] }> {
  const { waiting, open } = await clients.chat.listInbox({ ownerId: m.ownerId, reason: reason ?? '' });
  return { waiting: waiting.map(inboxItemView), open: open.map(inboxItemView) };
}

export async function countWaiting(clients: Clients, m: Member): Promise<number> {
  return (await clients.chat.countWaiting({ ownerId: m.ownerId })).waiting;
}

export async function loadInboxConversation(clients: Clients, m: Member, id: string): Promise<InboxConversationView> {
  const res = await clients.chat.getInboxConversation({ ownerId: m.ownerId, conversationId: conversationId(id) });
  return {
    item: inboxItemView(res.item),
    sessionId: res.conversation?.sessionId ?? '',
    messages: (res.conversation?.messages ?? []).map(inboxMessageView),
    summary: res.summary || null,
    lead: res.lead ? leadView(res.lead) : null,
  };
}

const target = (m: Member, id: string) => ({ ownerId: m.ownerId, conversationId: conversationId(id), agent: agentOf(m) });

export async function claimConversation(clients: Clients, m: Member, id: string): Promise<InboxItemView> {
  return inboxItemView((await clients.chat.claimConversation(target(m, id))).item);
}

export async function handBackConversation(clients: Clients, m: Member, id: string): Promise<InboxItemView> {
  return inboxItemView((await clients.chat.handBackConversation(target(m, id))).item);
}

export async function closeConversation(clients: Clients, m: Member, id: string): Promise<InboxItemView> {
  return inboxItemView((await clients.chat.closeConversation(target(m, id))).item);
}

export async function replyToConversation(
  clients: Clients,
  m: Member,
  input: { id: string; content: string; clientMessageId: string },
): Promise<InboxMessageView> {
  const request = { ...target(m, input.id), content: content(input.content), clientMessageId: clientMessageId(input.clientMessageId) };
  return inboxMessageView((await clients.chat.replyToConversation(request)).message);
}

export async function addConversationNote(
  clients: Clients,
  m: Member,
  input: { id: string; content: string; clientMessageId: string },
): Promise<InboxMessageView> {
  const request = { ...target(m, input.id), content: content(input.content), clientMessageId: clientMessageId(input.clientMessageId) };
  return inboxMessageView((await clients.chat.addConversationNote(request)).message);
}

export async function summarizeConversation(clients: Clients, m: Member, id: string): Promise<string> {
  return (await clients.chat.summarizeConversation({ ownerId: m.ownerId, conversationId: conversationId(id) })).summary;
}
