import { UpdateChatbotModelMutation } from '../graphql/update-chatbot-model-mutation';
import { useSaveChatbotSection } from './use-save-chatbot-section';

/** Saves the Model card; the answer replaces the chatbot's model in the cache. */
export function useUpdateChatbotModel(chatbotId: string) {
  return useSaveChatbotSection(chatbotId, UpdateChatbotModelMutation);
}
