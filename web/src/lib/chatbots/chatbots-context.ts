import { createContext, useContext } from 'react';
import type { ChatbotListState, ChatbotSummary } from './chatbot-list';

export interface ChatbotsStore extends ChatbotListState {
  /** Fetches the list again, throttled (docs/product.md, Chatbots); safe to call from every page that shows it. */
  refresh: () => Promise<void>;
  /** Local updates after a mutation succeeded, so no refetch is needed. */
  add: (chatbot: ChatbotSummary) => void;
  update: (chatbot: Pick<ChatbotSummary, 'id'> & Partial<ChatbotSummary>) => void;
  remove: (id: string) => void;
}

export const ChatbotsContext = createContext<ChatbotsStore | null>(null);

export function useChatbots(): ChatbotsStore {
  const store = useContext(ChatbotsContext);
  if (!store) throw new Error('useChatbots must be used inside <ChatbotsProvider>');
  return store;
}
