import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import type { ChatbotSummary } from '../../../lib/chatbots/chatbot-list';
import { graphqlErrorCode, graphqlErrorExtension, graphqlErrorMessage } from '../../../lib/graphql-errors';
import { CreateChatbotMutation } from '../graphql/create-chatbot-mutation';

export const NAME_REQUIRED_MESSAGE = 'Name is required';
export const CREATE_CHATBOT_FAILED_MESSAGE = 'Failed to create chatbot';
export const PLAN_LIMIT_MESSAGE = 'Free users can only create one chatbot.';

export interface CreateChatbotError {
  message: string;
  /** The free plan's one-chatbot limit: the form offers an upgrade next to the message. */
  limitReached: boolean;
}

function isPlanLimitError(error: unknown): boolean {
  return graphqlErrorCode(error) === 'LIMIT_REACHED' || graphqlErrorExtension(error, 'limitReached') === true;
}

/** Validates the name, creates the chatbot and appends it to the list; owns the form's error. */
export function useCreateChatbot() {
  const store = useChatbots();
  const [mutate, { loading }] = useMutation(CreateChatbotMutation);
  const [error, setError] = useState<CreateChatbotError | null>(null);

  async function createChatbot(name: string): Promise<ChatbotSummary | null> {
    const trimmed = name.trim();
    if (!trimmed) {
      setError({ message: NAME_REQUIRED_MESSAGE, limitReached: false });
      return null;
    }
    setError(null);
    try {
      const { data } = await mutate({ variables: { input: { name: trimmed } } });
      if (!data) throw new Error('empty createChatbot response');
      store.add(data.createChatbot);
      return data.createChatbot;
    } catch (failure) {
      setError(
        isPlanLimitError(failure)
          ? { message: PLAN_LIMIT_MESSAGE, limitReached: true }
          : { message: graphqlErrorMessage(failure) ?? CREATE_CHATBOT_FAILED_MESSAGE, limitReached: false },
      );
      return null;
    }
  }

  /** Typing a name clears "Name is required" (docs/product.md, Chatbots); a server's answer stays until the next submit. */
  function nameChanged(name: string) {
    if (error?.message === NAME_REQUIRED_MESSAGE && name.trim()) setError(null);
  }

  return { createChatbot, nameChanged, loading, error };
}
