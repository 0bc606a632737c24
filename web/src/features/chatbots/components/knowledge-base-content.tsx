import { Alert } from '../../../components/ui/alert';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import type { KnowledgeBaseFieldsFragment } from '../../../gql/graphql';
import { useDeleteTextEntry } from '../hooks/use-delete-text-entry';
import { TextEntryItem } from './text-entry-item';

interface KnowledgeBaseContentProps {
  chatbotId: string;
  knowledgeBase: KnowledgeBaseFieldsFragment;
}

/**
 * The entries one by one (each deletable, with its source and status) and the combined text of the
 * ready ones, which is what the chatbot actually reads.
 */
export function KnowledgeBaseContent({ chatbotId, knowledgeBase }: KnowledgeBaseContentProps) {
  const { deleteEntry, deletingId, error, success } = useDeleteTextEntry(chatbotId);
  const entries = knowledgeBase.textEntries;

  return (
    <Card>
      <CardHeader title="Knowledge Base Content" />
      <CardBody className="space-y-6">
        {error ? <Alert>{error}</Alert> : null}
        {success ? <Alert tone="success">{success}</Alert> : null}

        <section aria-labelledby="knowledge-entries-heading">
          <h3 id="knowledge-entries-heading" className="text-sm font-semibold text-gray-900">
            Text Entries
          </h3>
          {entries.length === 0 ? (
            <p className="mt-2 text-sm text-gray-500">No knowledge base entries yet.</p>
          ) : (
            <ul className="mt-3 space-y-3">
              {entries.map((entry) => (
                <TextEntryItem
                  key={entry.id}
                  chatbotId={chatbotId}
                  entry={entry}
                  onDelete={() => void deleteEntry(entry.id)}
                  deleteDisabled={deletingId !== null}
                  deleting={deletingId === entry.id}
                />
              ))}
            </ul>
          )}
        </section>

        <section aria-labelledby="knowledge-preview-heading">
          <h3 id="knowledge-preview-heading" className="text-sm font-semibold text-gray-900">
            Text Knowledge Preview
          </h3>
          {knowledgeBase.text.trim() ? (
            <div
              tabIndex={0}
              aria-labelledby="knowledge-preview-heading"
              className="mt-3 max-h-64 overflow-y-auto rounded-xl bg-gray-50 p-4 text-sm leading-6 whitespace-pre-wrap break-words text-gray-700 ring-1 ring-gray-200 ring-inset"
            >
              {knowledgeBase.text}
            </div>
          ) : (
            <p className="mt-2 text-sm text-gray-500">No text knowledge added yet.</p>
          )}
        </section>
      </CardBody>
    </Card>
  );
}
