// The public face of a chatbot, looked up by its unguessable uniqueId for the public chat page. The
// badge stays hidden only while the owner is pro: an owner who hid it and then left the pro plan
// shows it again, without any change to the row. Handoff to a person (pro only) reads the same way.
// Billing is asked only for chatbots that hide the badge or have handoff on.
import { parseUniqueId, publicChatbotNotFound } from '@parley/common/public-chatbot.ts';
import type { Chatbot, PrismaClient } from '../generated/prisma/client.ts';
import type { OwnerPlanLookup } from './owner-plan.ts';

export interface PublicChatbotDeps {
  db: PrismaClient;
  ownerPlan: OwnerPlanLookup;
}

/**
 * The active chatbot, its hideBranding and handoffEnabled read as the public sees them. `branding:
 * false` is for callers that show nothing (a message's knowledge, on every message): no billing
 * call, hideBranding false, handoffEnabled as stored.
 */
export async function getPublicChatbot(deps: PublicChatbotDeps, rawUniqueId: string, opts: { branding?: boolean } = {}): Promise<Chatbot> {
  // Anything that cannot be one of our ids is not looked up at all.
  const uniqueId = parseUniqueId(rawUniqueId);
  const chatbot = await deps.db.chatbot.findUnique({ where: { uniqueId } });
  if (!chatbot || !chatbot.isActive) throw publicChatbotNotFound();
  if (!chatbot.hideBranding && !chatbot.handoffEnabled) return chatbot;
  // A message's knowledge keeps handoff as stored (the chat service decides with the owner's plan
  // it already has); the public page, like the badge, sees it only while the owner is pro.
  if (opts.branding === false) return { ...chatbot, hideBranding: false };
  const pro = await ownerIsPro(deps.ownerPlan, chatbot.ownerId);
  return { ...chatbot, hideBranding: chatbot.hideBranding && pro, handoffEnabled: chatbot.handoffEnabled && pro };
}

/** A visitor's page must not fail over the badge: billing unreachable reads as not pro (the badge shows). */
async function ownerIsPro(ownerPlan: OwnerPlanLookup, ownerId: string): Promise<boolean> {
  try {
    return (await ownerPlan(ownerId)) === 'pro';
  } catch {
    // ownerPlan has logged why.
    return false;
  }
}
