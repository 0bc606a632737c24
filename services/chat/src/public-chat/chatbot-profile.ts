// The chat page's and the widget's header and greeting: a chatbot's name, picture, welcome message,
// suggested questions, how it looks, where it may run, its lead form and whether a visitor may ask
// for a person, by its uniqueId, from the chatbot service.
// Nothing about the owner, the knowledge or the spend limits leaves the chat service (the RPC layer
// maps only these fields). A site the chatbot may not run on gets the refusal, not the profile.
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { readAppearance, type AppearanceSettings } from '@parley/proto/appearance.ts';
import { LeadFormSchema, type ChatbotService, type LeadForm, type PublicChatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { create } from '@bufbuild/protobuf';
import type { Logger } from '@parley/common/logger.ts';
import { parseUniqueId, publicChatbotNotFound } from '@parley/common/public-chatbot.ts';
import { chatbotUnavailable } from '../core/visitor-errors.ts';
import { checkSite, embeddingOf, parseVisitorSite } from '../core/visitor-site.ts';

export interface ChatbotProfileDeps {
  chatbots: Client<typeof ChatbotService>;
  logger: Logger;
}

export interface ChatbotProfile {
  name: string;
  profilePicture: string;
  welcomeMessage: string;
  suggestedQuestions: string[];
  /** hideBranding is already false while the owner is not pro (the chatbot service's rule). */
  appearance: AppearanceSettings;
  /** The embed page's frame-ancestors; empty: anywhere. */
  allowedDomains: string[];
  /** A new conversation's first message must carry a solved challenge. */
  proofOfWork: boolean;
  standalonePage: boolean;
  /** The lead form as the owner set it (every field "off": none). */
  leadForm: LeadForm;
  /** The visitor may ask for a person: handoff on and the owner pro (the chatbot service's public rule). */
  handoff: boolean;
}

/** Where a public call came from, as the gateway tells it (visitor-site.ts). */
export interface PublicCall {
  uniqueId: string;
  siteHost?: string;
  embedded?: boolean;
}

/** The active chatbot behind a public call, once the call's site is allowed: unknown or inactive is NOT_FOUND, a site it may not run on PERMISSION_DENIED. */
export async function loadPublicChatbot(deps: ChatbotProfileDeps, call: PublicCall): Promise<PublicChatbot> {
  const uniqueId = parseUniqueId(call.uniqueId);
  let chatbot: PublicChatbot | undefined;
  try {
    ({ chatbot } = await deps.chatbots.getPublicChatbot({ uniqueId }));
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.NotFound) throw publicChatbotNotFound();
    deps.logger.warn({ err: (err as Error).message }, 'chatbot GetPublicChatbot failed');
    throw chatbotUnavailable();
  }
  if (!chatbot) throw publicChatbotNotFound();
  checkSite(parseVisitorSite(call), chatbot);
  return chatbot;
}

export async function loadChatbotProfile(deps: ChatbotProfileDeps, call: PublicCall): Promise<ChatbotProfile> {
  const chatbot = await loadPublicChatbot(deps, call);
  const embedding = embeddingOf(chatbot);
  return {
    name: chatbot.name,
    profilePicture: chatbot.profilePicture,
    welcomeMessage: chatbot.voice?.welcomeMessage ?? '',
    suggestedQuestions: chatbot.voice?.suggestedQuestions ?? [],
    appearance: readAppearance(chatbot.appearance),
    allowedDomains: [...embedding.allowedDomains],
    proofOfWork: chatbot.limits?.proofOfWork ?? false,
    standalonePage: embedding.standalonePage,
    leadForm: chatbot.leadForm ?? create(LeadFormSchema, { name: 'off', email: 'off', phone: 'off', trigger: 'before_first_message' }),
    handoff: chatbot.handoff?.enabled ?? false,
  };
}
