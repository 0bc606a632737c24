import { UpdateChatbotVoiceMutation } from '../graphql/update-chatbot-voice-mutation';
import { useSaveChatbotSection } from './use-save-chatbot-section';

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
  /** Answer in the language the visitor writes in, whatever the chatbot's language. */
  answerInVisitorLanguage: boolean;
}

/** Saves the Bot voice card; blank suggested questions are dropped, as the service would. */
export function useUpdateChatbotVoice(chatbotId: string) {
  const { save, loading, error, success } = useSaveChatbotSection(chatbotId, UpdateChatbotVoiceMutation);

  async function saveVoice(settings: VoiceSettings): Promise<VoiceSettings | null> {
    const saved = await save({
      instructions: settings.instructions,
      temperature: settings.temperature,
      welcomeMessage: settings.welcomeMessage,
      suggestedQuestions: settings.suggestedQuestions.map((q) => q.trim()).filter(Boolean),
      noAnswerMessage: settings.noAnswerMessage,
      answerInVisitorLanguage: settings.answerInVisitorLanguage,
    });
    if (!saved) return null;
    return {
      instructions: saved.instructions,
      temperature: saved.temperature ?? null,
      welcomeMessage: saved.welcomeMessage,
      suggestedQuestions: saved.suggestedQuestions,
      noAnswerMessage: saved.noAnswerMessage,
      answerInVisitorLanguage: saved.answerInVisitorLanguage,
    };
  }

  return { saveVoice, loading, error, success };
}
