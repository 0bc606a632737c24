// A visitor's lead (docs/adr/0034-humans-in-the-loop.md): the chat's lead form, or the email asked
// for when nobody answered a handoff. Like a message, it counts against the visitor's rate limit
// (admission.ts) and is refused where the chatbot may not run (visitor-site.ts); a visitor who has
// no conversation yet (the form before the first message, or a session id this service did not
// issue) starts one, whose session id the answer carries, so the visitor's next message continues it.
//
// One lead per conversation, in one transaction: the first submission creates it and raises
// lead.created (event id `lead:<id>`, so a retried delivery is one event); a later one fills in or
// replaces the fields it gives, and raises nothing. A chatbot deleted since it was looked up gets no
// conversation and no lead (the deletion's rule, core/deleted-chatbots.ts).
import { randomUUID } from 'node:crypto';
import { ConnectError } from '@connectrpc/connect';
import type { WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import { publicChatbotNotFound } from '@parley/common/public-chatbot.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Admission } from '../core/admission.ts';
import { lockDeletedChatbots } from '../core/deleted-chatbots.ts';
import type { SessionIds } from '../core/session-id.ts';
import { answerFailed } from '../core/visitor-errors.ts';
import { loadPublicChatbot, type ChatbotProfileDeps } from '../public-chat/chatbot-profile.ts';
import { checkLeadAgainstForm, parseLeadInput, type RawLeadInput } from './lead-input.ts';
import { channelContact } from './channel-lead.ts';
import { publishLeadCreated } from './lead-created.ts';

export interface SubmitLeadDeps extends ChatbotProfileDeps {
  db: PrismaClient;
  sessionIds: SessionIds;
  admission: Admission;
  /** lead.created for the owner's webhooks (only when subscribed; never waited on, never throws). */
  webhooks?: Pick<WebhookPublisher, 'publish'>;
}

export interface SubmitLeadResult {
  leadId: string;
  sessionId: string;
}

interface StoredLead {
  id: string;
  conversationId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  consented: boolean;
  source: string;
  createdAt: Date;
  inserted: boolean;
}

export async function submitLead(deps: SubmitLeadDeps, raw: RawLeadInput): Promise<SubmitLeadResult> {
  const input = parseLeadInput(raw, deps.sessionIds);
  try {
    await deps.admission.admit(input, []);
  } catch (err) {
    if (err instanceof ConnectError) throw err; // the visitor's limit
    deps.logger.warn({ err: (err as Error).message }, 'rate limit check failed');
    throw answerFailed();
  }
  const chatbot = await loadPublicChatbot(deps, { uniqueId: input.uniqueId, ...input.site });
  checkLeadAgainstForm(input, chatbot.leadForm);
  // The consent line as the visitor saw it under the form; the timeout's email form shows none.
  const consentText = input.source === 'form' && chatbot.leadForm?.consentText ? chatbot.leadForm.consentText : null;
  const consented = input.source === 'form' && consentText !== null && input.consented;

  const lead = await deps.db.$transaction(async (tx) => {
    if ((await lockDeletedChatbots(tx, [chatbot.id])).size > 0) throw publicChatbotNotFound();
    // The conversation, opened by the lead when the visitor has none yet (as the first exchange would open it).
    const [conversation] = await tx.$queryRaw<{ id: string; channel: string | null }[]>`
      INSERT INTO "Conversation" ("id", "chatbotId", "ownerId", "sessionId", "userIp", "userAgent", "visitorId", "visitorName", "updatedAt")
      VALUES (${randomUUID()}::uuid, ${chatbot.id}::uuid, ${chatbot.ownerId}, ${input.sessionId}, ${input.clientIp}, ${input.userAgent},
              ${input.visitorId}, ${input.visitorName}, now())
      ON CONFLICT ("chatbotId", "sessionId") DO UPDATE SET "updatedAt" = "Conversation"."updatedAt"
      RETURNING "id"::text AS "id", "channel"`;
    // A messaging channel's conversation: the lead keeps the channel user's identity (never read for the web's).
    const contact = conversation!.channel ? await channelContact(tx, chatbot.id, input.sessionId, conversation!.channel) : null;
    // xmax = 0 only on the row this statement inserted: the first submission.
    const [stored] = await tx.$queryRaw<StoredLead[]>`
      INSERT INTO "Lead" ("id", "conversationId", "chatbotId", "ownerId", "name", "email", "phone", "consented", "consentText", "source",
                          "channel", "channelContact", "updatedAt")
      VALUES (${randomUUID()}::uuid, ${conversation!.id}::uuid, ${chatbot.id}::uuid, ${chatbot.ownerId}, ${input.name}, ${input.email},
              ${input.phone}, ${consented}, ${consentText}, ${input.source}, ${contact ? conversation!.channel : null}, ${contact}, now())
      ON CONFLICT ("conversationId") DO UPDATE SET
        "name" = COALESCE(EXCLUDED."name", "Lead"."name"),
        "email" = COALESCE(EXCLUDED."email", "Lead"."email"),
        "phone" = COALESCE(EXCLUDED."phone", "Lead"."phone"),
        "consented" = "Lead"."consented" OR EXCLUDED."consented",
        "consentText" = CASE WHEN EXCLUDED."consented" THEN EXCLUDED."consentText" ELSE "Lead"."consentText" END,
        "updatedAt" = now()
      RETURNING "id"::text AS "id", "conversationId"::text AS "conversationId", "name", "email", "phone", "consented", "source",
                "createdAt", (xmax = 0) AS "inserted"`;
    return stored!;
  });

  if (lead.inserted) publishLeadCreated(deps.webhooks, { ...lead, chatbotId: chatbot.id, ownerId: chatbot.ownerId }, input.sessionId);
  return { leadId: lead.id, sessionId: input.sessionId };
}
