// A chatbot's knowledge base as the product shows it (docs/product.md, Knowledge base): typed text,
// files, web pages and Q&A pairs, from the chatbot service's messages. REST and GraphQL share these
// views; only the id field's name differs (`_id` in REST). The chatbot's own view embeds the knowledge
// base through knowledgeBaseView.
import type { KnowledgeBase, TextEntry } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';
import { isoDate } from '../../http/dates.ts';
import { INT32_MAX } from '../../http/input.ts';

/** Where an entry's text came from: `name` for a file, `url` for a web page, each only when it has one. */
export interface EntrySourceView {
  type: string;
  name?: string;
  url?: string;
}

export interface TextEntryView {
  id: string;
  title: string;
  content: string;
  createdAt: string;
  updatedAt: string;
  source: EntrySourceView;
  status: string;
  error: string | null;
  question: string | null;
  autoSync: boolean;
  lastSyncedAt: string | null;
  lastSyncChanged: boolean | null;
}

export interface KnowledgeBaseView {
  text: string;
  textEntries: TextEntryView[];
}

export function textEntryView(entry: TextEntry | undefined): TextEntryView {
  // A contract violation, not a user error: it surfaces as a logged 500.
  if (!entry) throw new ConnectError('chatbot service returned no entry', Code.Internal);
  const createdAt = isoDate(entry.createdAt)!;
  const source = entry.source;
  return {
    id: entry.id,
    title: entry.title,
    content: entry.content,
    createdAt,
    // An entry never changed since it was added may come without one.
    updatedAt: isoDate(entry.updatedAt) ?? createdAt,
    // Typed text is what an entry without a source or status always was: ready at once.
    source: { type: source?.type || 'text', ...(source?.name ? { name: source.name } : {}), ...(source?.url ? { url: source.url } : {}) },
    status: entry.status || 'ready',
    error: entry.error || null,
    question: entry.question || null,
    autoSync: entry.autoSync,
    lastSyncedAt: isoDate(entry.lastSyncedAt),
    lastSyncChanged: entry.lastSyncChanged ?? null,
  };
}

export function knowledgeBaseView(kb: KnowledgeBase | undefined): KnowledgeBaseView {
  return { text: kb?.text ?? '', textEntries: (kb?.textEntries ?? []).map(textEntryView) };
}

/** An entry the owner just added or changed, and the knowledge base it is now part of. */
export function textEntryResultView(res: { entry?: TextEntry; knowledgeBase?: KnowledgeBase }) {
  return { entry: textEntryView(res.entry), knowledgeBase: knowledgeBaseView(res.knowledgeBase) };
}

/**
 * AddUrlEntry's max_pages from what the owner gave: on the wire 0 means "not given" (the default),
 * so a typed 0 or less travels as -1 and a number beyond int32 as its largest, both for the chatbot
 * service to refuse with its own message (it owns the 1–100 rule).
 */
export function maxPagesField(typed: number | null | undefined): number {
  if (typed === undefined || typed === null) return 0;
  return typed < 1 ? -1 : Math.min(typed, INT32_MAX);
}

/** An entry as REST clients read it: `_id`. */
export function restTextEntry({ id, ...rest }: TextEntryView) {
  return { _id: id, ...rest };
}

/** The knowledge base as REST clients read it: entries carry `_id`. */
export function restKnowledgeBase(kb: KnowledgeBaseView) {
  return { text: kb.text, textEntries: kb.textEntries.map(restTextEntry) };
}

/** The answer of every REST path that adds or changes one entry: `{ entry, knowledgeBase }`. */
export function restTextEntryResult(res: { entry: TextEntryView; knowledgeBase: KnowledgeBaseView }) {
  return { entry: restTextEntry(res.entry), knowledgeBase: restKnowledgeBase(res.knowledgeBase) };
}
