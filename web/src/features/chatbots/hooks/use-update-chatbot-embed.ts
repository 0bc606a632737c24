import type { UpdateChatbotInput } from '../../../gql/graphql';
import { UpdateChatbotEmbedMutation } from '../graphql/update-chatbot-embed-mutation';
import { useSaveChatbotSection } from './use-save-chatbot-section';

export type EmbedInput = Pick<UpdateChatbotInput, 'appearance' | 'allowedDomains' | 'standalonePage' | 'limits'>;

/**
 * Saves one card of the Embed tab (each card has its own, so each shows its own outcome). The
 * cache picks up the answer, so the tab and the preview follow; the server's refusals (a free
 * owner hiding the badge, a host name it does not accept) are shown as they come.
 */
export function useUpdateChatbotEmbed(chatbotId: string) {
  const { save, ...section } = useSaveChatbotSection(chatbotId, UpdateChatbotEmbedMutation);
  return { saveEmbed: (input: EmbedInput) => save(input), ...section };
}
