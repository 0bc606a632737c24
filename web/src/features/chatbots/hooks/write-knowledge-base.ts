import type { ApolloCache } from '@apollo/client';
import type { KnowledgeBaseFieldsFragment } from '../../../gql/graphql';
import { ChatbotKnowledgeBaseFragment } from '../graphql/chatbot-knowledge-base-fragment';

/** Knowledge-base mutations answer with the whole new knowledge base; it replaces the chatbot's. */
export function writeKnowledgeBase(cache: ApolloCache, chatbotId: string, knowledgeBase: KnowledgeBaseFieldsFragment) {
  cache.writeFragment({
    id: cache.identify({ __typename: 'Chatbot', id: chatbotId }),
    fragment: ChatbotKnowledgeBaseFragment,
    fragmentName: 'ChatbotKnowledgeBase',
    data: { id: chatbotId, knowledgeBase },
  });
}
