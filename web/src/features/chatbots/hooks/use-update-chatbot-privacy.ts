import { UpdateChatbotPrivacyMutation } from '../graphql/update-chatbot-privacy-mutation';
import { useSaveChatbotSection } from './use-save-chatbot-section';

/** Saves the Privacy card; the answer replaces the chatbot in the cache. */
export function useUpdateChatbotPrivacy(chatbotId: string) {
  return useSaveChatbotSection(chatbotId, UpdateChatbotPrivacyMutation);
}
