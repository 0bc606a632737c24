import type { ApolloCache } from '@apollo/client';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';

/**
 * One group fewer waiting: the chatbot's open-unanswered counter goes down in the cache (the detail
 * page) and in the shared chatbot list (the cards), without asking the server again.
 */
export function useCountDownOpenUnanswered(chatbotId: string) {
  const { chatbots, update } = useChatbots();
  return (cache: ApolloCache) => {
    let next: number | undefined;
    cache.modify<{ openUnansweredQuestions: number }>({
      id: cache.identify({ __typename: 'Chatbot', id: chatbotId }),
      fields: {
        openUnansweredQuestions: (count) => (next = Math.max(0, count - 1)),
      },
    });
    const listed = chatbots.find((chatbot) => chatbot.id === chatbotId);
    if (listed) update({ id: chatbotId, openUnansweredQuestions: next ?? Math.max(0, listed.openUnansweredQuestions - 1) });
  };
}
