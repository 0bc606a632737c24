import type { ApolloCache } from '@apollo/client';
import type { TextEntryResultFieldsFragment } from '../../../gql/graphql';
import { writeKnowledgeBase } from './write-knowledge-base';

/** An entry mutation answers with the entry and the whole new knowledge base; the knowledge base replaces the chatbot's. */
export function writeTextEntryResult(cache: ApolloCache, chatbotId: string, result: TextEntryResultFieldsFragment) {
  writeKnowledgeBase(cache, chatbotId, result.knowledgeBase);
}
