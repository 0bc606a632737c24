// Creating a chatbot. The free plan allows one chatbot per owner; the check and the insert run under
// a per-owner advisory lock in one transaction, so two concurrent creates cannot both pass it.
import { newUniqueId } from '@parley/common/public-chatbot.ts';
import { Code, ConnectError, PLAN_LIMIT_HEADER } from '@parley/common/rpc-errors.ts';
import type { Chatbot, PrismaClient } from '../generated/prisma/client.ts';
import { parseName, parseOwnerId } from '../core/chatbot-input.ts';
import type { OwnerPlanLookup } from './owner-plan.ts';

export const FREE_PLAN_CHATBOTS = 1;
export const PLAN_LIMIT_MESSAGE = 'Free users can only create one chatbot.';
// The error carries PLAN_LIMIT_HEADER metadata, so the gateway can answer
// `{ message, limitReached: true }` without parsing the message.
export function planLimitError(): ConnectError {
  return new ConnectError(PLAN_LIMIT_MESSAGE, Code.FailedPrecondition, { [PLAN_LIMIT_HEADER]: 'true' });
}

export interface CreateChatbotDeps {
  db: PrismaClient;
  ownerPlan: OwnerPlanLookup;
}

export async function createChatbot(deps: CreateChatbotDeps, input: { ownerId: string; name: string }): Promise<Chatbot> {
  const ownerId = parseOwnerId(input.ownerId);
  const name = parseName(input.name);
  // Asked before the transaction: no lock is held while waiting on another service.
  const plan = await deps.ownerPlan(ownerId);
  return deps.db.$transaction(async (tx) => {
    if (plan === 'free') {
      await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext('parley.chatbot-create'), hashtext(${ownerId}))) AS l`;
      const owned = await tx.chatbot.count({ where: { ownerId } });
      if (owned >= FREE_PLAN_CHATBOTS) throw planLimitError();
    }
    return tx.chatbot.create({ data: { ownerId, name, uniqueId: newUniqueId() } });
  });
}
