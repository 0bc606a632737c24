import { UpdateChatbotLeadSettingsMutation } from '../graphql/update-chatbot-lead-settings-mutation';
import { useSaveChatbotSection } from './use-save-chatbot-section';

/** Saves the Lead form or the Handoff to a person card; the answer replaces the chatbot in the cache. */
export function useUpdateChatbotLeadSettings(chatbotId: string) {
  return useSaveChatbotSection(chatbotId, UpdateChatbotLeadSettingsMutation);
}
