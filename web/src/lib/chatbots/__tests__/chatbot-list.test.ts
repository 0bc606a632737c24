import { describe, expect, it } from 'vitest';
import { sampleChatbot } from '../../../test/chatbot-fixtures';
import { chatbotListReducer, emptyChatbotList, type ChatbotListState } from '../chatbot-list';

const a = sampleChatbot({ id: 'a', name: 'Alpha' });
const b = sampleChatbot({ id: 'b', name: 'Beta' });
const loaded: ChatbotListState = chatbotListReducer(emptyChatbotList, { type: 'fetchSucceeded', chatbots: [a, b] });

describe('chatbotListReducer', () => {
  it('a successful fetch replaces the list and marks it loaded', () => {
    expect(loaded).toEqual({ chatbots: [a, b], loaded: true, loading: false, error: null });
  });

  it('create appends', () => {
    const c = sampleChatbot({ id: 'c', name: 'Gamma' });
    expect(chatbotListReducer(loaded, { type: 'added', chatbot: c }).chatbots.map((x) => x.id)).toEqual(['a', 'b', 'c']);
  });

  it('adding a chatbot already listed changes nothing', () => {
    expect(chatbotListReducer(loaded, { type: 'added', chatbot: a })).toBe(loaded);
  });

  it('update replaces only the matching item, keeping its place', () => {
    const next = chatbotListReducer(loaded, { type: 'updated', chatbot: { ...b, name: 'Beta 2', isActive: false } });
    expect(next.chatbots.map((x) => [x.id, x.name, x.isActive])).toEqual([
      ['a', 'Alpha', true],
      ['b', 'Beta 2', false],
    ]);
    expect(next.chatbots[0]).toBe(a);
  });

  it('a partial update (a new picture) keeps the other fields', () => {
    const next = chatbotListReducer(loaded, { type: 'updated', chatbot: { id: 'a', profilePicture: '/media/chatbots/a.png' } });
    expect(next.chatbots[0]).toEqual({ ...a, profilePicture: '/media/chatbots/a.png' });
  });

  it('delete removes the item', () => {
    expect(chatbotListReducer(loaded, { type: 'removed', id: 'a' }).chatbots).toEqual([b]);
    expect(chatbotListReducer(loaded, { type: 'removed', id: 'zzz' })).toBe(loaded);
  });

  it('a failed fetch keeps the list and records the error', () => {
    const next = chatbotListReducer(loaded, { type: 'fetchFailed', error: 'Failed to fetch chatbots' });
    expect(next.chatbots).toEqual([a, b]);
    expect(next.error).toBe('Failed to fetch chatbots');
  });

  it('clearing (sign-out) empties everything', () => {
    expect(chatbotListReducer(loaded, { type: 'cleared' })).toEqual(emptyChatbotList);
  });
});
