import type { ReactNode } from 'react';

/**
 * What a page shows under a bot's answer to a visitor's question, given by the app's routes so a
 * feature can offer another feature's action ("Add to tests" in the inbox) without importing it.
 */
export type AnswerSlot = (answer: {
  chatbotId: string;
  question: string;
  answer: string;
  sources: { entryId: string; title: string }[];
}) => ReactNode;
