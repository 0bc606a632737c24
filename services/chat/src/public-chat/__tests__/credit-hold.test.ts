import { describe, expect, it } from 'vitest';
import { buildPrompt } from '../build-prompt.ts';
import { maxPromptTokens, MESSAGE_OVERHEAD_TOKENS } from '../credit-hold.ts';

describe('maxPromptTokens', () => {
  it('counts every UTF-8 byte of every message, plus the overhead of each message and of the reply', () => {
    const prompt = [
      { role: 'system' as const, content: 'abc' }, // 3 bytes
      { role: 'user' as const, content: 'é😀' }, // 2 + 4 bytes
      { role: 'assistant' as const, content: '' },
      { role: 'user' as const, content: '商店' }, // 3 + 3 bytes
    ];
    expect(maxPromptTokens(prompt)).toBe(3 + 6 + 0 + 6 + 5 * MESSAGE_OVERHEAD_TOKENS);
    expect(maxPromptTokens([])).toBe(MESSAGE_OVERHEAD_TOKENS);
  });

  it('is at least the chars/4 estimate and the count of anything that splits text into byte-level tokens', () => {
    const { messages: prompt } = buildPrompt({
      botName: 'Shop',
      language: 'chinese',
      voice: { instructions: '', noAnswerMessage: '' },
      knowledge: [
        { title: '营业时间', text: '商店九点开门。' },
        { title: 'Hours', text: 'We open at nine, 😀 every day.' },
      ],
      knowledgeChars: 1000,
      history: [
        { role: 'user', content: 'Bonjour, ça va ?' },
        { role: 'assistant', content: 'Oui.' },
      ],
      historyChars: 1000,
      message: 'When?',
    });
    const chars = prompt.reduce((n, m) => n + m.content.length, 0);
    // Worst case for a byte-level tokenizer: one token per byte, not one per character.
    const oneTokenPerByte = prompt.reduce((n, m) => n + new TextEncoder().encode(m.content).length, 0);
    expect(oneTokenPerByte).toBeGreaterThan(chars);
    expect(maxPromptTokens(prompt)).toBeGreaterThan(oneTokenPerByte);
    expect(maxPromptTokens(prompt)).toBeGreaterThan(Math.ceil(chars / 4));
  });
});
