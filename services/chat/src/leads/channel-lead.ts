// A lead that carries the channel it came from (docs/adr/0062-channel-replies-exactly-once.md): a
// messaging channel's visitor has no lead form, so when nobody answered their wait for a person,
// the timeout message (handoff/handoff-timeout.ts) asks them on the channel for their email, and
// the email they write back is taken as the lead (source `handoff_timeout`), with the channel and
// the channel user's identity (`channelContact`: the thread's chat id, which is the Telegram chat,
// a phone number or an email address as the channel has it; WhatsApp's, the visitor's phone number,
// in E.164 with its `+`). A lead the web's form left in a channel's conversation (submit-lead.ts)
// records them too.
import { randomUUID } from 'node:crypto';
import type { WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { TIMEOUT_MESSAGE } from '../handoff/handoff-timeout.ts';
import { parseLeadEmail } from './lead-input.ts';
import { publishLeadCreated } from './lead-created.ts';

/** Told on the channel once the email was taken. */
export const leadTaken = (email: string) => `Thank you. We will write to you at ${email}.`;

// Something@domain.tld inside a sentence ("my email is ada@example.com."); parseLeadEmail has the last word.
const EMAIL_IN_TEXT = /[^\s@<>()[\]"',;:]+@[^\s@<>()[\]"',;:]+\.[^\s@<>()[\]"',;:]*[^\s@<>()[\]"',;:.]/;

/** The email address a channel user wrote in their message; null when there is none. */
export function emailInMessage(text: string): string | null {
  if (!text.includes('@')) return null;
  const found = EMAIL_IN_TEXT.exec(text)?.[0];
  if (!found) return null;
  try {
    return parseLeadEmail(found);
  } catch {
    return null;
  }
}

/**
 * The lead's `channelContact` for a channel user's chat id: WhatsApp's chat id is the sender's phone
 * number as Meta writes it (the country code and number, digits only), kept in E.164 (`+` and 7 to
 * 15 digits); any other channel's chat id as it is. A WhatsApp id that is no phone number is kept as it is.
 */
export function contactOf(channel: string, chatId: string): string {
  if (channel === 'whatsapp' && /^[1-9]\d{6,14}$/.test(chatId)) return `+${chatId}`;
  return chatId;
}

/**
 * The channel user's identity in a conversation of the chatbot on that channel (its thread's chat id;
 * email's: the thread's contact address, docs/adr/0063-email-channel.md); null when it has none.
 */
export async function channelContact(
  db: Pick<PrismaClient, '$queryRaw'> | Prisma.TransactionClient,
  chatbotId: string,
  sessionId: string,
  channel: string,
): Promise<string | null> {
  const [thread] = await db.$queryRaw<{ chatId: string }[]>`
    SELECT COALESCE(e."contact", t."chatId") AS "chatId"
      FROM "ChannelThread" t JOIN "ChannelConnection" c ON c."id" = t."connectionId"
      LEFT JOIN "EmailThread" e ON e."connectionId" = t."connectionId" AND e."chatId" = t."chatId"
     WHERE t."sessionId" = ${sessionId} AND c."chatbotId" = ${chatbotId}::uuid AND c."channel" = ${channel}`;
  return thread ? contactOf(channel, thread.chatId) : null;
}

export interface ChannelLeadDeps {
  db: PrismaClient;
  webhooks?: Pick<WebhookPublisher, 'publish'>;
}

interface TakenLead {
  id: string;
  ownerId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  consented: boolean;
  source: string;
  createdAt: Date;
  inserted: boolean;
}

/**
 * The email a channel user wrote just after the wait ran out (the conversation's newest message is
 * the timeout's), taken as their conversation's lead in ONE statement; null when the message is no
 * answer to that question. A second email replaces the first (one lead per conversation), and
 * lead.created is raised once, at the first. Returns what to tell the channel user.
 */
export async function takeChannelLead(
  deps: ChannelLeadDeps,
  input: { chatbotId: string; sessionId: string; channel: string; chatId: string; text: string },
): Promise<string | null> {
  const email = emailInMessage(input.text);
  if (!email) return null;
  const [lead] = await deps.db.$queryRaw<TakenLead[]>`
    INSERT INTO "Lead" ("id", "conversationId", "chatbotId", "ownerId", "email", "source", "channel", "channelContact", "updatedAt")
    SELECT ${randomUUID()}::uuid, c."id", c."chatbotId", c."ownerId", ${email}, 'handoff_timeout', ${input.channel}, ${contactOf(input.channel, input.chatId)}, now()
      FROM "Conversation" c
     WHERE c."chatbotId" = ${input.chatbotId}::uuid AND c."sessionId" = ${input.sessionId} AND c."handoffStatus" = 'bot'
       AND (SELECT m."content" FROM "Message" m WHERE m."conversationId" = c."id" AND m."role" = 'system'
             AND m."id" = (SELECT max(n."id") FROM "Message" n WHERE n."conversationId" = c."id")) = ${TIMEOUT_MESSAGE}
    ON CONFLICT ("conversationId") DO UPDATE SET
      "email" = EXCLUDED."email", "channel" = EXCLUDED."channel", "channelContact" = EXCLUDED."channelContact", "updatedAt" = now()
    RETURNING "id"::text AS "id", "ownerId", "name", "email", "phone", "consented", "source", "createdAt", (xmax = 0) AS "inserted"`;
  if (!lead) return null;
  if (lead.inserted) publishLeadCreated(deps.webhooks, { ...lead, chatbotId: input.chatbotId }, input.sessionId);
  return leadTaken(email);
}
