import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardHeader } from '../../../components/ui/card';
import { Spinner } from '../../../components/ui/spinner';
import { SelectField } from '../../../components/ui/select-field';
import { countByReason, REASON_FILTER_OPTIONS, withReason } from '../../../lib/reasons';
import { useState } from 'react';
import { useUnansweredQuestions } from '../hooks/use-unanswered-questions';
import { UnansweredQuestionItem } from './unanswered-question-item';

/**
 * Where the chatbot falls short: visitors' questions its knowledge could not answer (or that were
 * rated down), grouped so one answer fixes every wording. Pro only; the tab shows it to Pro owners.
 */
export function UnansweredQuestionsCard({ chatbotId, enabled }: { chatbotId: string; enabled: boolean }) {
  const { questions, loading, error, retry } = useUnansweredQuestions(chatbotId, enabled);
  const openCount = questions.filter((question) => question.status === 'open').length;
  const [reason, setReason] = useState('');
  // Each reason's share of the questions asked (a group counts its questions), and the list of one reason.
  const byReason = countByReason(questions, (group) => group.count);
  const shown = withReason(questions, reason);

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
        <>
          <div className="flex flex-col gap-3 border-b border-gray-100 px-6 py-4 sm:flex-row sm:items-end sm:justify-between">
            <ul aria-label="Questions by reason" className="flex flex-wrap gap-2">
              {byReason.map((r) => (
                <li key={r.code}>
                  <button
                    type="button"
                    aria-pressed={reason === r.code}
                    onClick={() => setReason(reason === r.code ? '' : r.code)}
                    className={
                      reason === r.code
                        ? 'rounded-full bg-brand-600 px-3 py-1 text-xs font-medium text-white'
                        : 'rounded-full bg-gray-100 px-3 py-1 text-xs font-medium text-gray-700 hover:bg-gray-200'
                    }
                  >
                    {r.label} <span className="tabular-nums">{r.count}</span>
                  </button>
                </li>
              ))}
            </ul>
            <SelectField
              label="Reason"
              hideLabel
              name="unanswered-reason"
              controlClassName="h-9 text-sm"
              className="sm:w-48"
              value={reason}
              options={REASON_FILTER_OPTIONS}
              onChange={(e) => setReason(e.target.value)}
            />
          </div>
          {shown.length === 0 ? (
            <p className="px-6 py-8 text-center text-sm text-gray-500">No open question has this reason.</p>
          ) : (
            <ul aria-label="Unanswered questions" className="divide-y divide-gray-100">
              {shown.map((group) => (
                <UnansweredQuestionItem key={group.id} chatbotId={chatbotId} group={group} />
              ))}
            </ul>
          )}
        </>
      )}
    </Card>
  );
}
