import { useEffect, useState } from 'react';
import { fetchPublicChatbot, PublicChatError, type PublicChatbot } from '../api/public-chat-api';
import { PUBLIC_CHATBOT_NOT_FOUND } from '../not-found';

type PublicChatbotState = { status: 'loading' } | { status: 'ready'; chatbot: PublicChatbot } | { status: 'error'; error: string };

/** Loads the chatbot's public face (name, picture, appearance); an unknown or inactive chatbot is an error. */
export function usePublicChatbot(uniqueId: string, embedded = false): PublicChatbotState {
  const [state, setState] = useState<PublicChatbotState>({ status: 'loading' });

  useEffect(() => {
    if (!uniqueId) {
      setState({ status: 'error', error: PUBLIC_CHATBOT_NOT_FOUND });
      return;
    }
    const controller = new AbortController();
    setState({ status: 'loading' });
    fetchPublicChatbot(uniqueId, { embedded, signal: controller.signal }).then(
      (chatbot) => setState({ status: 'ready', chatbot }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState({ status: 'error', error: error instanceof PublicChatError ? error.message : PUBLIC_CHATBOT_NOT_FOUND });
      },
    );
    return () => controller.abort();
  }, [uniqueId, embedded]);

  return state;
}
