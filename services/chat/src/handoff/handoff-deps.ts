// What the handoff's use cases are given (service.ts builds it), and the checks every owner-side
// call makes: the workspace is on Pro (billing's plan, as core/history-access.ts asks it), the
// conversation is the workspace's (another workspace's is NOT_FOUND, as is an id that cannot be
// one), and the acting member is named.
import type { Client } from '@connectrpc/connect';
import { Plan, type BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import type { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import type { HandoffRequestedSchema, HandoffTimeoutDueSchema } from '@parley/proto/parley/events/v1/handoff_requested_pb.js';
import type { ChannelReplyRequestedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import type { Logger } from '@parley/common/logger.ts';
import type { Producer } from '@parley/common/queues.ts';
import { forbidden, invalid, notFound, unavailable } from '@parley/common/rpc-errors.ts';
import type { WebhookPublisher } from '@parley/common/webhook-publisher.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Admission } from '../core/admission.ts';
import { isUuid } from '@parley/common/ids.ts';
import { charCount, MAX_VISITOR_FIELD_CHARS } from '../core/message-input.ts';
import type { SessionIds } from '../core/session-id.ts';
import type { CreditGate } from '../public-chat/credit-hold.ts';
import type { RoutedModel } from '../models/model-router.ts';
import type { RecentTurns } from '../public-chat/recent-turns.ts';
import type { Usage } from '../usage/publishers.ts';
import type { HandoffMirror } from './announce.ts';
import type { LiveHub, LivePublisher } from './live-hub.ts';
import { CONVERSATION_NOT_FOUND } from '@parley/common/not-found.ts';
import { withoutControlCharacters } from '@parley/common/control-characters.ts';

export { CONVERSATION_NOT_FOUND };

export const INBOX_PRO_ONLY = 'The live inbox is available on the Pro plan.';
export const INBOX_UNAVAILABLE = 'Could not load the inbox. Please try again.';
export const AGENT_REQUIRED = 'agent.id and agent.name are required.';
export const AGENT_TOO_LONG = `agent.id and agent.name are at most ${MAX_VISITOR_FIELD_CHARS} characters.`;

export interface HandoffDeps {
  db: PrismaClient;
  logger: Logger;
  chatbots: Client<typeof ChatbotService>;
  billing: Client<typeof BillingService>;
  sessionIds: SessionIds;
  admission: Admission;
  mirror: HandoffMirror;
  live: LivePublisher;
  hub: LiveHub;
  /** The deployment's Redis key prefix (the channels' names). */
  prefix: string;
  recentTurns: Pick<RecentTurns, 'forget'>;
  /** parley.handoff-timeout: the wait's deadline, a delayed job. */
  timeouts: Pick<Producer<typeof HandoffTimeoutDueSchema>, 'publish'>;
  /** parley.handoff-requested: auth mails the agents. */
  handoffRequested: Pick<Producer<typeof HandoffRequestedSchema>, 'publish'>;
  webhooks: Pick<WebhookPublisher, 'publish'>;
  /** parley.channel-outbound: the team's messages to a messaging channel's conversation (announce.ts's toChannel). */
  channelReplies?: Pick<Producer<typeof ChannelReplyRequestedSchema>, 'publish'>;
  maxMessageChars: number;
  /** The agent's summary: paid like an answer (summarize-conversation.ts). */
  summary: {
    /** The deployment's default model; null: offline mode (the visitor's first and latest questions, free). */
    model: RoutedModel | null;
    credit: CreditGate;
    /** Joins the usage to its batch (never throws). */
    publishUsage: (usage: Usage) => void;
  };
}

/** The owner id as given, required. */
export function parseOwnerId(raw: string): string {
  const ownerId = raw.trim();
  if (!ownerId) throw invalid('owner_id is required.');
  return ownerId;
}

/** A conversation id: a UUID, lower case; anything else names no conversation. */
export function parseConversationId(raw: string): string {
  if (!isUuid(raw)) throw notFound(CONVERSATION_NOT_FOUND);
  return raw.trim().toLowerCase();
}

/** The acting member (auth's user id and display name, as the gateway names them). */
export function parseAgent(raw: { id: string; name: string } | undefined): { id: string; name: string } {
  // Control characters have no place in a name shown to visitors.
  const clean = (value: string) => withoutControlCharacters(value).trim();
  const id = clean(raw?.id ?? '');
  const name = clean(raw?.name ?? '');
  if (!id || !name) throw invalid(AGENT_REQUIRED);
  if (charCount(id) > MAX_VISITOR_FIELD_CHARS || charCount(name) > MAX_VISITOR_FIELD_CHARS) throw invalid(AGENT_TOO_LONG);
  return { id, name };
}

/** Whether the workspace is on Pro; UNAVAILABLE when billing cannot tell. */
export async function isPro(
  deps: Pick<HandoffDeps, 'billing' | 'logger'>,
  ownerId: string,
  unavailableMessage = INBOX_UNAVAILABLE,
): Promise<boolean> {
  try {
    const { account } = await deps.billing.getAccount({ ownerId });
    return account?.plan === Plan.PRO;
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'billing GetAccount failed');
    throw unavailable(unavailableMessage);
  }
}

/** The owner id, when the workspace may use the live inbox (Pro); PERMISSION_DENIED otherwise. */
export async function assertInboxAccess(deps: Pick<HandoffDeps, 'billing' | 'logger'>, rawOwnerId: string): Promise<string> {
  const ownerId = parseOwnerId(rawOwnerId);
  if (!(await isPro(deps, ownerId))) throw forbidden(INBOX_PRO_ONLY);
  return ownerId;
}
