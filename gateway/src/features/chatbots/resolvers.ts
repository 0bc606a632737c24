// GraphQL counterparts of /api/chatbot/* (a chatbot and its settings; its knowledge entries are
// features/knowledge's resolvers): the same service calls, the same messages.
import type { Resolvers } from '../../generated/graphql.ts';
import { chatbotView, embedSettingsChange, languageChange, updateChatbot, voiceChange } from './chatbots.ts';
import { knowledgeBaseView } from '../knowledge/knowledge.ts';
import { leadSettingsChange } from '../leads/leads.ts';
import { privacyChange } from '../privacy/privacy.ts';
import { workspaceModels } from '../models/models.ts';
import { selectsField } from '../../http/selection.ts';

export const chatbotResolvers: Resolvers = {
  Query: {
    chatbots: async (_parent, _args, ctx, info) => {
      // The knowledge bases come in the same call when the query wants them, never one call per chatbot.
      const { chatbots } = await ctx.clients.chatbot.listChatbots({
        ownerId: (await ctx.member()).ownerId,
        includeKnowledgeBase: selectsField(info, 'knowledgeBase'),
      });
      return chatbots.map((c) => chatbotView(c, ctx.catalogue));
    },
    chatbot: async (_parent, { id }, ctx) => {
      const { chatbot } = await ctx.clients.chatbot.getChatbot({ ownerId: (await ctx.member()).ownerId, chatbotId: id });
      return chatbotView(chatbot, ctx.catalogue);
    },
    models: async (_parent, _args, ctx) => workspaceModels(ctx.clients, (await ctx.member()).ownerId),
  },
  Mutation: {
    createChatbot: async (_parent, { input }, ctx) => {
      const { chatbot } = await ctx.clients.chatbot.createChatbot({ ownerId: (await ctx.member()).ownerId, name: input.name });
      return chatbotView(chatbot, ctx.catalogue);
    },
    updateChatbot: async (_parent, { id, input }, ctx) => {
      const m = await ctx.member();
      const actor = { userId: m.user.id, workspaceId: m.ownerId, clientIp: m.clientIp };
      const changes = {
        // GraphQL null means "not given", like an absent field.
        name: input.name ?? undefined,
        isActive: input.isActive ?? undefined,
        ...languageChange(input.language ?? undefined),
        ...voiceChange({
          instructions: input.instructions ?? undefined,
          // The one field where null says something: back to the product's default.
          temperature: input.temperature,
          welcomeMessage: input.welcomeMessage ?? undefined,
          suggestedQuestions: input.suggestedQuestions ?? undefined,
          noAnswerMessage: input.noAnswerMessage ?? undefined,
          answerInVisitorLanguage: input.answerInVisitorLanguage ?? undefined,
        }),
        // Here too null says something for the colour (the product's) and a limit (none).
        ...embedSettingsChange({
          appearance: input.appearance
            ? {
                primaryColor: input.appearance.primaryColor,
                position: input.appearance.position ?? undefined,
                launcherLabel: input.appearance.launcherLabel ?? undefined,
                hideBranding: input.appearance.hideBranding ?? undefined,
              }
            : undefined,
          allowedDomains: input.allowedDomains ?? undefined,
          standalonePage: input.standalonePage ?? undefined,
          limits: input.limits
            ? {
                visitorMessagesPerDay: input.limits.visitorMessagesPerDay,
                dailySpendLimit: input.limits.dailySpendLimit,
                proofOfWork: input.limits.proofOfWork ?? undefined,
              }
            : undefined,
        }),
        ...leadSettingsChange({
          leadForm: input.leadForm
            ? {
                name: input.leadForm.name ?? undefined,
                email: input.leadForm.email ?? undefined,
                phone: input.leadForm.phone ?? undefined,
                trigger: input.leadForm.trigger ?? undefined,
                afterMessages: input.leadForm.afterMessages ?? undefined,
                consentText: input.leadForm.consentText ?? undefined,
              }
            : undefined,
          handoff: input.handoff
            ? { enabled: input.handoff.enabled ?? undefined, timeoutSeconds: input.handoff.timeoutSeconds ?? undefined }
            : undefined,
        }),
        ...privacyChange(
          input.privacy
            ? {
                redactPersonalData: input.privacy.redactPersonalData ?? undefined,
                keepOriginal: input.privacy.keepOriginal ?? undefined,
                patterns: input.privacy.patterns ?? undefined,
              }
            : undefined,
        ),
      };
      // A null fallback removes it, as "" does.
      const model = { modelId: input.modelId ?? undefined, fallbackModelId: input.fallbackModelId };
      return updateChatbot(ctx.clients, ctx.catalogue, { actor }, id, changes, model);
    },
    deleteChatbot: async (_parent, { id }, ctx) => {
      await ctx.clients.chatbot.deleteChatbot({ ownerId: (await ctx.member()).ownerId, chatbotId: id });
      return true;
    },
  },
  Chatbot: {
    // Every read that can select the knowledge base loads it; this is a fallback for any that does not.
    knowledgeBase: async (chatbot, _args, ctx) => {
      if (chatbot.knowledgeBase) return chatbot.knowledgeBase;
      const { chatbot: full } = await ctx.clients.chatbot.getChatbot({
        ownerId: (await ctx.member()).ownerId,
        chatbotId: chatbot.id,
      });
      return chatbotView(full, ctx.catalogue).knowledgeBase ?? knowledgeBaseView(undefined);
    },
    // One CountUnansweredQuestions call per request, however many chatbots the query lists.
    openUnansweredQuestions: async (chatbot, _args, ctx) => (await ctx.openUnansweredQuestions()).get(chatbot.id) ?? 0,
  },
};
