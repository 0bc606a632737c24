// Without a language model (no OPENAI_API_KEY) a chatbot still answers, honestly: it says it is in
// offline mode and quotes the passages of its knowledge base that best match the question, citing
// the entries it quotes as any answer does (citations.ts). Nothing is billed for it.
import type { LanguageName } from '@parley/proto/language.ts';
import { citationNumbering, type CitablePassage, type CitedAnswer } from './citations.ts';

/** Passages quoted in one offline answer, and the length each is cut to. */
export const OFFLINE_PASSAGES = 3;
const PASSAGE_MAX_CHARS = 700;

const LABELS: Record<LanguageName, { found: string; none: string }> = {
  english: {
    found: '**Offline mode:** no language model is connected, so here are the passages of my knowledge base that best match your question.',
    none: '**Offline mode:** no language model is connected, and I found nothing in my knowledge base that matches your question.',
  },
  french: {
    found:
      "**Mode hors ligne :** aucun modèle de langage n'est connecté ; voici les passages de ma base de connaissances qui correspondent le mieux à votre question.",
    none: "**Mode hors ligne :** aucun modèle de langage n'est connecté, et je n'ai rien trouvé dans ma base de connaissances qui corresponde à votre question.",
  },
  chinese: {
    found: '**离线模式：**未连接语言模型，以下是知识库中与您的问题最相关的段落。',
    none: '**离线模式：**未连接语言模型，知识库中没有找到与您的问题相关的内容。',
  },
};

export function offlineLabels(language: string) {
  return LABELS[language as LanguageName] ?? LABELS.english;
}

const cut = (text: string): string => {
  const chars = [...text.trim()];
  return chars.length > PASSAGE_MAX_CHARS ? `${chars.slice(0, PASSAGE_MAX_CHARS).join('').trimEnd()}…` : chars.join('');
};

/**
 * A Markdown answer (the chat page renders Markdown): the label, then each passage as a quote ending
 * with its entry's marker, numbered as a model's answer is (citations.ts); the quoted text itself is
 * left as it is, and a passage that names no entry is quoted uncited.
 */
export function offlineAnswer(passages: (CitablePassage & { text: string })[], language: string): CitedAnswer {
  const labels = offlineLabels(language);
  const quoted = passages
    .map((p) => ({ ...p, text: p.text.trim() }))
    .filter((p) => p.text)
    .slice(0, OFFLINE_PASSAGES);
  if (!quoted.length) return { message: labels.none, sources: [] };
  const numbering = citationNumbering();
  const quotes = quoted.map((p) => {
    const n = numbering.numberOf(p);
    const quote = cut(p.text)
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n');
    return n === null ? quote : `${quote} [${n}]`;
  });
  return { message: [labels.found, ...quotes].join('\n\n'), sources: numbering.sources };
}
