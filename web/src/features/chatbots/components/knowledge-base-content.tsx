import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import type { KnowledgeBaseFieldsFragment } from '../../../gql/graphql';
import { formatDate } from '../../../lib/format';
import { useDeleteTextEntry } from '../hooks/use-delete-text-entry';

interface KnowledgeBaseContentProps {
  chatbotId: string;
  knowledgeBase: KnowledgeBaseFieldsFragment;
}

/** The entries one by one (each deletable) and the combined text the chatbot actually reads. */
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
                <li key={entry.id} className="rounded-xl border border-gray-200 p-4">
                  <div className="flex items-start justify-between gap-3">
                    <div className="min-w-0">
                      <h4 className="text-sm font-medium break-words text-gray-900">{entry.title}</h4>
                      <p className="mt-0.5 text-xs text-gray-500">{formatDate(entry.createdAt)}</p>
                    </div>
                    <Button
                      variant="ghost"
                      size="sm"
                      className="shrink-0 text-red-600 hover:bg-red-50 hover:text-red-700"
                      onClick={() => void deleteEntry(entry.id)}
                      disabled={deletingId !== null}
                      busy={deletingId === entry.id}
                    >
                      Delete
                    </Button>
                  </div>
                  <p className="mt-2 line-clamp-4 text-sm whitespace-pre-wrap break-words text-gray-700">{entry.content}</p>
                </li>
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
