import { describe, expect, it } from 'vitest';
import { offlineAnswer } from '../offline-answer.ts';

describe('offlineAnswer', () => {
  it('labels the answer and quotes at most three passages', () => {
    const answer = offlineAnswer(['one', 'two\nlines', 'three', 'four'], 'english');
    expect(answer).toBe(
      '**Offline mode:** no language model is connected, so here are the passages of my knowledge base that best match your question.\n\n' +
        '> one\n\n> two\n> lines\n\n> three',
    );
  });

  it('cuts a long passage', () => {
    const answer = offlineAnswer(['x'.repeat(2000)], 'english');
    expect(answer).toContain(`> ${'x'.repeat(700)}…`);
    expect(answer).not.toContain('x'.repeat(701));
  });

  it("speaks the chatbot's language, and says when nothing matched", () => {
    expect(offlineAnswer([], 'chinese')).toBe('**离线模式：**未连接语言模型，知识库中没有找到与您的问题相关的内容。');
    expect(offlineAnswer(['Bonjour'], 'french')).toMatch(/^\*\*Mode hors ligne :\*\*/);
    expect(offlineAnswer([' '], 'english')).toMatch(/I found nothing/);
  });
});
