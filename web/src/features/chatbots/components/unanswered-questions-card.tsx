import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardHeader } from '../../../components/ui/card';
import { Spinner } from '../../../components/ui/spinner';
import { useUnansweredQuestions } from '../hooks/use-unanswered-questions';
import { UnansweredQuestionItem } from './unanswered-question-item';

/**
 * Where the chatbot falls short: visitors' questions its knowledge could not answer (or that were
 * rated down), grouped so one answer fixes every wording. Pro only; the tab shows it to Pro owners.
 */
export function UnansweredQuestionsCard({ chatbotId, enabled }: { chatbotId: string; enabled: boolean }) {
  const { questions, loading, error, retry } = useUnansweredQuestions(chatbotId, enabled);
  const openCount = questions.filter((question) => question.status === 'open').length;

  return (
    <Card>
      <CardHeader
        title="Unanswered questions"
        description="Questions your knowledge could not answer, or answers visitors rated down, grouped by meaning."
        action={openCount > 0 ? <Badge tone="brand">{openCount} open</Badge> : null}
      />
      {loading ? (
        <div className="flex justify-center py-10 text-brand-600">
          <Spinner className="size-6" label="Loading unanswered questions" />
        </div>
      ) : error ? (
        <div className="px-6 py-5">
          <Alert className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
            <span>{error}</span>
            <Button variant="secondary" size="sm" onClick={retry}>
              Try Again
            </Button>
          </Alert>
        </div>
      ) : questions.length === 0 ? (
        <div className="px-6 py-10 text-center">
          <p className="text-sm font-medium text-gray-900">Nothing waiting</p>
          <p className="mt-1 text-sm text-gray-500">Every question visitors asked was answered from your knowledge.</p>
        </div>
      ) : (
        <ul aria-label="Unanswered questions" className="divide-y divide-gray-100">
          {questions.map((group) => (
            <UnansweredQuestionItem key={group.id} chatbotId={chatbotId} group={group} />
          ))}
        </ul>
      )}
    </Card>
  );
}
