import { describe, expect, it } from 'vitest';
import { offlineAnswer } from '../offline-answer.ts';

const FOUND =
  '**Offline mode:** no language model is connected, so here are the passages of my knowledge base that best match your question.';
/** Passages from a chatbot service that names no entry (nothing to cite). */
const plain = (...texts: string[]) => texts.map((text) => ({ text, entryId: '', title: '', url: '' }));

describe('offlineAnswer', () => {
  it('labels the answer and quotes at most three passages', () => {
    const answer = offlineAnswer(plain('one', 'two\nlines', 'three', 'four'), 'english');
    expect(answer).toEqual({ message: `${FOUND}\n\n> one\n\n> two\n> lines\n\n> three`, sources: [] });
  });

  it('cites the entries it quotes, one number per entry, in the order quoted', () => {
    const answer = offlineAnswer(
      [
        { text: 'Refunds within 30 days.', entryId: 'e-refunds', title: 'Refunds', url: '' },
        { text: 'Shipping is free.', entryId: 'e-shipping', title: 'Shipping', url: 'https://shop.example/shipping' },
        { text: 'Refunds need a receipt [2].', entryId: 'e-refunds', title: 'Refunds', url: '' },
        { text: 'Not quoted.', entryId: 'e-other', title: 'Other', url: '' },
      ],
      'english',
    );
    // The quoted text is left as it is, its own brackets included.
    expect(answer.message).toBe(
      `${FOUND}\n\n> Refunds within 30 days. [1]\n\n> Shipping is free. [2]\n\n> Refunds need a receipt [2]. [1]`,
    );
    expect(answer.sources).toEqual([
      { entryId: 'e-refunds', title: 'Refunds', url: '' },
      { entryId: 'e-shipping', title: 'Shipping', url: 'https://shop.example/shipping' },
    ]);
  });

  it('cuts a long passage', () => {
    const { message } = offlineAnswer(plain('x'.repeat(2000)), 'english');
    expect(message).toContain(`> ${'x'.repeat(700)}…`);
    expect(message).not.toContain('x'.repeat(701));
  });

  it("speaks the chatbot's language, and says when nothing matched", () => {
    expect(offlineAnswer([], 'chinese')).toEqual({
      message: '**离线模式：**未连接语言模型，知识库中没有找到与您的问题相关的内容。',
      sources: [],
    });
    expect(offlineAnswer(plain('Bonjour'), 'french').message).toMatch(/^\*\*Mode hors ligne :\*\*/);
    expect(offlineAnswer(plain(' '), 'english').message).toMatch(/I found nothing/);
  });
});
