import { describe, expect, it } from 'vitest';
import { buildPrompt, fitHistory, fitKnowledge, languageInstruction, systemPrompt, type Turn } from '../build-prompt.ts';

const base = {
  botName: 'Helper',
  language: 'english',
  knowledge: ['Fact A.'],
  knowledgeChars: 1000,
  history: [] as Turn[],
  historyChars: 1000,
  message: 'Question?',
};

describe('buildPrompt', () => {
  it("gives the model the chatbot's name, the rules, the language and the knowledge, then the visitor's message", () => {
    const prompt = buildPrompt(base);
    expect(prompt.map((m) => m.role)).toEqual(['system', 'user']);
    const system = prompt[0].content;
    expect(system).toContain('You are "Helper"');
    expect(system).toContain('using only the information in the knowledge base');
    expect(system).toContain('say plainly that you do not know');
    expect(system).toContain('Always reply in English.');
    expect(system).toContain('<knowledge_base>\nFact A.\n</knowledge_base>');
    expect(prompt[1]).toEqual({ role: 'user', content: 'Question?' });
  });

  it('names each language, and falls back to English for an unknown one', () => {
    expect(languageInstruction('english')).toBe('Always reply in English.');
    expect(languageInstruction('french')).toBe('Always reply in French.');
    expect(languageInstruction('chinese')).toBe('Always reply in Chinese (Simplified).');
    expect(languageInstruction('klingon')).toBe('Always reply in English.');
  });

  it('says so when the knowledge base is empty', () => {
    expect(systemPrompt({ ...base, knowledge: [] })).toContain('(The knowledge base is empty.)');
    expect(systemPrompt({ ...base, knowledge: ['  '] })).toContain('(The knowledge base is empty.)');
  });

  it('puts the recent turns between the rules and the new message', () => {
    const history: Turn[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
    ];
    expect(
      buildPrompt({ ...base, history })
        .map((m) => m.content)
        .slice(1),
    ).toEqual(['Hi', 'Hello!', 'Question?']);
  });
});

describe('fitKnowledge', () => {
  it('keeps passages in order while they fit, skipping one that does not', () => {
    expect(fitKnowledge(['aaaa', 'b'.repeat(50), 'cc'], 30)).toEqual(['aaaa', 'cc']);
  });

  it('cuts a first passage larger than the budget instead of dropping everything', () => {
    expect(fitKnowledge(['x'.repeat(100)], 10)).toEqual(['x'.repeat(10)]);
  });

  it('never splits a surrogate pair', () => {
    const [cut] = fitKnowledge(['a😀😀'], 2);
    expect(cut).toBe('a');
  });

  it('bounds the whole knowledge section, separators included', () => {
    const passages = Array.from({ length: 100 }, (_, i) => `passage ${i} `.repeat(5));
    const kept = fitKnowledge(passages, 500);
    expect(kept.join('\n\n---\n\n').length).toBeLessThanOrEqual(500);
    expect(kept[0]).toBe(passages[0].trim());
  });
});

describe('fitHistory', () => {
  const turns: Turn[] = [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: 'two' },
    { role: 'user', content: 'three' },
    { role: 'assistant', content: 'four' },
  ];

  it('keeps the newest turns within the budget, oldest first', () => {
    expect(fitHistory(turns, 1000)).toEqual(turns);
    expect(fitHistory(turns, 9)).toEqual(turns.slice(2));
  });

  it('never starts with an answer whose question was left out', () => {
    expect(fitHistory(turns, 5).map((t) => t.content)).toEqual([]);
    expect(fitHistory(turns, 12).map((t) => t.content)).toEqual(['three', 'four']);
  });

  it('keeps nothing with no budget', () => {
    expect(fitHistory(turns, 0)).toEqual([]);
  });
});
