// Without a language model (no OPENAI_API_KEY) a chatbot still answers, honestly: it says it is in
// offline mode and quotes the passages of its knowledge base that best match the question. Nothing
// is billed for it.
import type { LanguageName } from '@parley/proto/language.ts';

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

/** A Markdown answer (the chat page renders Markdown): the label, then each passage as a quote. */
export function offlineAnswer(passages: string[], language: string): string {
  const labels = offlineLabels(language);
  const quoted = passages
    .map((p) => p.trim())
    .filter(Boolean)
    .slice(0, OFFLINE_PASSAGES)
    .map((p) =>
      cut(p)
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n'),
    );
  if (!quoted.length) return labels.none;
  return [labels.found, ...quoted].join('\n\n');
}
