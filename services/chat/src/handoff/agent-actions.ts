// What an agent does to a conversation of the workspace from the inbox (Pro only; another
// workspace's conversation is NOT_FOUND): claim it, reply to the visitor, add an internal note,
// hand it back to the bot, close it. Each move is one conditional UPDATE (conversation-moves.ts);
// a reply or note is stored exactly once per client_message_id, then published (announce.ts).
import { failedPrecondition, invalid, notFound } from '@parley/common/rpc-errors.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { charCount } from '../core/message-input.ts';
import { announceInboxRow, announceMove, toChannel } from './announce.ts';
import { CONVERSATION_COLUMNS, loadConversation, moveConversation, type ConversationRow, type MoveParams } from './conversation-moves.ts';
import { CONVERSATION_NOT_FOUND, assertInboxAccess, parseAgent, parseConversationId, type HandoffDeps } from './handoff-deps.ts';
import { messageView, type InboxItemView, type MessageRow, type MessageView } from './live-events.ts';
import { isUuid } from '@parley/common/ids.ts';
import { hasControlCharacters } from '@parley/common/control-characters.ts';

export const CONTENT_REQUIRED = 'Content is required';
export const contentTooLong = (maxChars: number) => `Content is too long (maximum ${maxChars.toLocaleString('en-US')} characters)`;
export const CONTENT_CONTROL_CHARACTERS = 'Content must not contain control characters';
export const CLIENT_MESSAGE_ID_INVALID = 'client_message_id must be a UUID';
export const BOT_HAS_IT = 'The bot is answering this conversation: claim it first.';
export const NOT_WITH_A_PERSON = 'This conversation is not waiting for a person.';

/** A reply's or note's text: trimmed, 1 to maxChars characters, no control characters but line breaks and tabs. */
export function parseContent(raw: string, maxChars: number): string {
  const content = raw.replace(/\r\n?/g, '\n').trim();
  if (!content) throw invalid(CONTENT_REQUIRED);
  if (hasControlCharacters(content, 'multi-line')) throw invalid(CONTENT_CONTROL_CHARACTERS);
  if (content.length > maxChars && charCount(content) > maxChars) throw invalid(contentTooLong(maxChars));
  return content;
}

export function parseClientMessageId(raw: string): string {
  const id = raw.trim().toLowerCase();
  if (!isUuid(id)) throw invalid(CLIENT_MESSAGE_ID_INVALID);
  return id;
}

interface AgentCall {
  ownerId: string;
  conversationId: string;
  agent?: { id: string; name: string };
}

async function moveByAgent(
  deps: HandoffDeps,
  raw: AgentCall,
  params: (agent: { id: string; name: string }) => MoveParams,
): Promise<InboxItemView> {
  const conversationId = parseConversationId(raw.conversationId);
  const agent = parseAgent(raw.agent);
  const ownerId = await assertInboxAccess(deps, raw.ownerId);
  const ref = { conversationId, ownerId };
  const moved = await moveConversation(deps.db, ref, params(agent));
  if (!moved) {
    const current = await loadConversation(deps.db, ref);
    if (!current) throw notFound(CONVERSATION_NOT_FOUND);
    throw failedPrecondition(NOT_WITH_A_PERSON);
  }
  return announceMove(deps, moved);
}

/** The agent takes the conversation: waiting, or human with another agent, becomes human with this one. */
export const claimConversation = (deps: HandoffDeps, raw: AgentCall) => moveByAgent(deps, raw, (agent) => ({ move: 'claim', agent }));

/** The bot answers again: waiting or human becomes bot (the bot's next prompt reads the agent's replies as its own). */
export const handBackConversation = (deps: HandoffDeps, raw: AgentCall) => moveByAgent(deps, raw, () => ({ move: 'handBack' }));

/** The conversation leaves the inbox; the visitor's next message is the bot's. */
export const closeConversation = (deps: HandoffDeps, raw: AgentCall) => moveByAgent(deps, raw, () => ({ move: 'close' }));

interface AgentMessageCall extends AgentCall {
  content: string;
  clientMessageId: string;
}

/**
 * Stores an agent's reply or note once per client message id. One transaction locks the
 * conversation row, so concurrent retries of one id run one after the other: the first inserts,
 * the others find its message and answer it (the unique (conversation, clientMessageId) index
 * backs this up). A reply to a waiting conversation claims it; a reply while the bot has it is
 * refused. A retried call whose message is stored answers it whatever the status now is.
 */
async function storeAgentMessage(
  deps: HandoffDeps,
  raw: AgentMessageCall,
  role: 'agent' | 'note',
): Promise<{ message: MessageView; conversation: ConversationRow; created: boolean; claimed: boolean }> {
  const conversationId = parseConversationId(raw.conversationId);
  const agent = parseAgent(raw.agent);
  const content = parseContent(raw.content, deps.maxMessageChars);
  const clientMessageId = parseClientMessageId(raw.clientMessageId);
  const ownerId = await assertInboxAccess(deps, raw.ownerId);

  return deps.db.$transaction(async (tx) => {
    const [conversation] = await tx.$queryRawUnsafe<ConversationRow[]>(
      `SELECT ${CONVERSATION_COLUMNS} FROM "Conversation" WHERE "id" = $1::uuid AND "ownerId" = $2 FOR UPDATE`,
      conversationId,
      ownerId,
    );
    if (!conversation) throw notFound(CONVERSATION_NOT_FOUND);
    const [existing] = await tx.$queryRaw<MessageRow[]>`
      SELECT "id", "role"::text AS "role", "content", "authorName", "createdAt", "sources" FROM "Message"
       WHERE "conversationId" = ${conversationId}::uuid AND "clientMessageId" = ${clientMessageId}`;
    if (existing) return { message: messageView(existing), conversation, created: false, claimed: false };
    const person = conversation.handoffStatus === 'waiting' || conversation.handoffStatus === 'human';
    if (role === 'agent' && !person) throw failedPrecondition(BOT_HAS_IT);

    const [stored] = await tx.$queryRaw<MessageRow[]>`
      INSERT INTO "Message" ("conversationId", "role", "content", "authorId", "authorName", "clientMessageId")
      VALUES (${conversationId}::uuid, ${role}::"MessageRole", ${content}, ${agent.id}, ${agent.name}, ${clientMessageId})
      ON CONFLICT ("conversationId", "clientMessageId") DO NOTHING
      RETURNING "id", "role"::text AS "role", "content", "authorName", "createdAt", "sources"`;
    if (!stored) throw new Error('the agent message conflicted inside its own lock');
    if (role === 'note') return { message: messageView(stored), conversation, created: true, claimed: false };

    const claimed = conversation.handoffStatus === 'waiting';
    const [updated] = await tx.$queryRaw<ConversationRow[]>`
      UPDATE "Conversation"
         SET "handoffStatus" = 'human',
             "assigneeId" = CASE WHEN ${claimed} THEN ${agent.id} ELSE "assigneeId" END,
             "assigneeName" = CASE WHEN ${claimed} THEN ${agent.name} ELSE "assigneeName" END,
             "messageCount" = "messageCount" + 1, "updatedAt" = now()
       WHERE "id" = ${conversationId}::uuid
      RETURNING ${Prisma.raw(CONVERSATION_COLUMNS)}`;
    return { message: messageView(stored), conversation: updated!, created: true, claimed };
  });
}

export async function replyToConversation(
  deps: HandoffDeps,
  raw: AgentMessageCall,
): Promise<{ message: MessageView; item: InboxItemView }> {
  const { message, conversation, created, claimed } = await storeAgentMessage(deps, raw, 'agent');
  if (!created) {
    // A retry: published already (or lost with a replica: the visitor's catch-up has it).
    const item = await announceInboxRow(deps, conversation);
    return { message, item };
  }
  await toChannel(deps, conversation, message);
  if (claimed) return { message, item: await announceMove(deps, conversation, { message }) };
  await deps.live.conversation(conversation.id, { kind: 'message', message });
  return { message, item: await announceInboxRow(deps, conversation) };
}

export async function addConversationNote(deps: HandoffDeps, raw: AgentMessageCall): Promise<MessageView> {
  const { message, conversation, created } = await storeAgentMessage(deps, raw, 'note');
  // Never on the visitor's channel; the inbox row does not change either (its last message is the visitor's view).
  if (created) await announceInboxRow(deps, conversation);
  return message;
}
