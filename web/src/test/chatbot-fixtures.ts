import { sampleUser } from './mock-link';

/** A chatbot as the gateway answers it (with __typename, as Apollo asks for it). */
export function sampleChatbot(overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'Chatbot' as const,
    id: 'c1',
    uniqueId: 'pub-c1',
    name: 'support bot',
    profilePicture: null as string | null,
    isActive: true,
    language: 'english' as const,
    interactions: 0,
    lastInteraction: null as string | null,
    createdAt: '2025-03-04T10:00:00.000Z',
    updatedAt: '2025-03-05T10:00:00.000Z',
    openUnansweredQuestions: 0,
    ...overrides,
  };
}

export function sampleKnowledgeBase(entries: Array<{ id: string; content: string }> = []) {
  return {
    __typename: 'KnowledgeBase' as const,
    text: entries.map((e) => e.content).join('\n\n'),
    textEntries: entries.map((e) => ({
      __typename: 'TextEntry' as const,
      id: e.id,
      title: e.content.split(/\s+/).slice(0, 5).join(' '),
      content: e.content,
      createdAt: '2025-03-06T10:00:00.000Z',
    })),
  };
}

export const proUser = { ...sampleUser, subscription: 'pro' as const };
