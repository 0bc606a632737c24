import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { graphqlErrorMessage } from '../../../lib/graphql-errors';
import { useFlashMessage } from '../../../lib/use-flash-message';
import { UpdateChatbotVoiceMutation } from '../graphql/update-chatbot-voice-mutation';
import { CHATBOT_UPDATED_MESSAGE, UPDATE_CHATBOT_FAILED_MESSAGE } from './use-update-chatbot';

// The limits the chatbot service enforces (its messages are shown as they come); here they only
// drive the counters and the number of question inputs.
export const MAX_INSTRUCTIONS_CHARS = 4000;
export const MAX_WELCOME_CHARS = 500;
export const MAX_NO_ANSWER_CHARS = 500;
export const MAX_SUGGESTED_QUESTIONS = 4;
export const MAX_SUGGESTED_QUESTION_CHARS = 120;
export const MAX_TEMPERATURE = 1.5;

export interface VoiceSettings {
  instructions: string;
  /** Null: the product's default. */
  temperature: number | null;
  welcomeMessage: string;
  suggestedQuestions: string[];
  noAnswerMessage: string;
}

/** Saves the Bot voice card; blank suggested questions are dropped, as the service would. */
export function useUpdateChatbotVoice(chatbotId: string) {
  const store = useChatbots();
  const [mutate, { loading }] = useMutation(UpdateChatbotVoiceMutation);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function saveVoice(settings: VoiceSettings): Promise<VoiceSettings | null> {
    setError(null);
    success.clear();
    try {
      const { data } = await mutate({
        variables: {
          id: chatbotId,
          input: {
            instructions: settings.instructions,
            temperature: settings.temperature,
            welcomeMessage: settings.welcomeMessage,
            suggestedQuestions: settings.suggestedQuestions.map((q) => q.trim()).filter(Boolean),
            noAnswerMessage: settings.noAnswerMessage,
          },
        },
      });
      if (!data) throw new Error('empty updateChatbot response');
      const saved = data.updateChatbot;
      store.update({ id: saved.id, updatedAt: saved.updatedAt });
      success.show(CHATBOT_UPDATED_MESSAGE);
      return {
        instructions: saved.instructions,
        temperature: saved.temperature ?? null,
        welcomeMessage: saved.welcomeMessage,
        suggestedQuestions: saved.suggestedQuestions,
        noAnswerMessage: saved.noAnswerMessage,
      };
    } catch (failure) {
      setError(graphqlErrorMessage(failure) ?? UPDATE_CHATBOT_FAILED_MESSAGE);
      return null;
    }
  }

  return { saveVoice, loading, error, success: success.message };
}
