// Renaming, (de)activating, changing a chatbot's language, its voice, its appearance, where it may
// run and its visitor limits (embed-settings.ts), its lead form and handoff (lead-handoff-settings.ts),
// its model choice (model-choice.ts, checked against the row as it is under the lock), its privacy
// (privacy-settings.ts);
// hiding the badge and turning handoff on are asked of billing first, pro only, and only when the
// change turns them on. A new language re-indexes the
// chatbot's chunks with its text-search configuration in the same transaction, so searches never
// mix stemmings. The row lock (FOR UPDATE) waits for knowledge being added (which holds FOR KEY
// SHARE) and holds new additions back until the re-index is committed.
import { forbidden, notFound } from '@parley/common/rpc-errors.ts';
import type { Chatbot, PrismaClient } from '../generated/prisma/client.ts';
import { reindexChatbot } from '../knowledge/index-chunks.ts';
import { searchConfigFor } from '../knowledge/search-text.ts';
import { CHATBOT_NOT_FOUND, parseLanguage, parseName, parseVoiceChange, type VoiceChangeInput } from '../core/chatbot-input.ts';
import { HIDE_BRANDING_PRO_ONLY, parseEmbedSettingsChange, type EmbedSettingsChange } from './embed-settings.ts';
import { HANDOFF_PRO_ONLY, parseLeadHandoffChange, type LeadHandoffChange } from './lead-handoff-settings.ts';
import { parseOwnedRef, type OwnedChatbotRef } from '../core/owned-chatbot.ts';
import type { OwnerPlanLookup } from './owner-plan.ts';
import type { ModelCatalogue } from '@parley/common/models/catalogue.ts';
import { applyModelChoiceChange, type ModelChoiceChangeInput } from './model-choice.ts';
import { parsePrivacyChange, type PrivacyChangeInput } from './privacy-settings.ts';

export interface UpdateChatbotInput extends OwnedChatbotRef, EmbedSettingsChange, LeadHandoffChange {
  name?: string;
  isActive?: boolean;
  language?: string;
  voice?: VoiceChangeInput;
  model?: ModelChoiceChangeInput;
  privacy?: PrivacyChangeInput;
}

export interface UpdateChatbotDeps {
  db: PrismaClient;
  ownerPlan: OwnerPlanLookup;
  catalogue: ModelCatalogue;
}

/** Generous: re-indexing a full knowledge base (5M characters) takes seconds, not minutes. */
const REINDEX_TIMEOUT_MS = 120_000;

export async function updateChatbot(deps: UpdateChatbotDeps, input: UpdateChatbotInput): Promise<Chatbot> {
  const { ownerId, chatbotId } = parseOwnedRef(input);
  const name = input.name === undefined ? undefined : parseName(input.name);
  const language = input.language === undefined ? undefined : parseLanguage(input.language);
  const voice = parseVoiceChange(input.voice);
  const embed = parseEmbedSettingsChange(input);
  const leadHandoff = parseLeadHandoffChange(input);
  const privacy = parsePrivacyChange(input.privacy);
  // Asked before the transaction (no lock is held while waiting on another service), once for both.
  if (embed.hideBranding || leadHandoff.handoffEnabled) {
    const pro = (await deps.ownerPlan(ownerId)) === 'pro';
    if (!pro && embed.hideBranding) throw forbidden(HIDE_BRANDING_PRO_ONLY);
    if (!pro) throw forbidden(HANDOFF_PRO_ONLY);
  }

  return deps.db.$transaction(
    async (tx) => {
      const [current] = await tx.$queryRaw<{ language: string; modelId: string | null; fallbackModelId: string | null }[]>`
        SELECT "language", "modelId", "fallbackModelId" FROM "Chatbot" WHERE "id" = ${chatbotId}::uuid AND "ownerId" = ${ownerId} FOR UPDATE`;
      if (!current) throw notFound(CHATBOT_NOT_FOUND);
      const model = applyModelChoiceChange(input.model, current, deps.catalogue);
      const chatbot = await tx.chatbot.update({
        where: { id: chatbotId },
        data: { name, isActive: input.isActive, language, ...voice, ...embed, ...leadHandoff, ...privacy, ...model },
      });
      if (language && searchConfigFor(language) !== searchConfigFor(current.language)) {
        await reindexChatbot(tx, chatbotId, searchConfigFor(language));
      }
      return chatbot;
    },
    { timeout: REINDEX_TIMEOUT_MS },
  );
}
