import type { KnowledgeBaseFieldsFragment } from '../../../gql/graphql';

// The REST upload answers with the knowledge base as REST clients read it (`_id`, optional source
// fields); this turns it into what the GraphQL cache holds, so the new entry shows without a refetch.

type TextEntry = KnowledgeBaseFieldsFragment['textEntries'][number];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function entryFromRest(raw: unknown): (TextEntry & { __typename: 'TextEntry' }) | null {
  if (!isRecord(raw) || !isRecord(raw.source)) return null;
  const id = text(raw._id) ?? text(raw.id);
  const createdAt = text(raw.createdAt);
  if (!id || !createdAt || typeof raw.status !== 'string') return null;
  return {
    __typename: 'TextEntry',
    id,
    title: text(raw.title) ?? '',
    content: text(raw.content) ?? '',
    createdAt,
    updatedAt: text(raw.updatedAt) ?? createdAt,
    source: { __typename: 'EntrySource', type: text(raw.source.type) ?? 'text', name: text(raw.source.name), url: text(raw.source.url) },
    status: raw.status,
    error: text(raw.error),
    question: text(raw.question),
    autoSync: raw.autoSync === true,
    lastSyncedAt: text(raw.lastSyncedAt),
    lastSyncChanged: typeof raw.lastSyncChanged === 'boolean' ? raw.lastSyncChanged : null,
  } as TextEntry & { __typename: 'TextEntry' };
}

/** The knowledge base in GraphQL's shape, or null when the answer is not one. */
export function knowledgeBaseFromRest(raw: unknown): KnowledgeBaseFieldsFragment | null {
  if (!isRecord(raw) || typeof raw.text !== 'string' || !Array.isArray(raw.textEntries)) return null;
  const entries = raw.textEntries.map(entryFromRest);
  if (entries.some((entry) => entry === null)) return null;
  return { __typename: 'KnowledgeBase', text: raw.text, textEntries: entries as TextEntry[] } as KnowledgeBaseFieldsFragment;
}
