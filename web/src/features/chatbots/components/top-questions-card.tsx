import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import type { AnalyticsFieldsFragment } from '../../../gql/graphql';
import { formatCount } from '../../../lib/format';

type AskedQuestion = AnalyticsFieldsFragment['topQuestions'][number];

/** What the card says when the server masked the questions' contact details for the member's role. */
export const REDACTED_QUESTIONS_NOTE =
  'Contact details are hidden for your role: emails, phone numbers and card numbers show as [email], [phone] and [card number].';

/**
 * The most asked questions of the range (similar wordings counted together), with a bar for each
 * count. `redacted`: the server masked their contact details, the member's role not reading
 * conversations (a viewer), and the card says so.
 */
export function TopQuestionsCard({ questions, redacted = false }: { questions: AskedQuestion[]; redacted?: boolean }) {
  const most = questions.reduce((max, question) => Math.max(max, question.count), 0);
  return (
    <Card className="flex h-full flex-col">
      <CardHeader title="Most asked questions" description="Similar questions are counted together." />
      <CardBody className="flex-1">
        {redacted ? <p className="mb-3 rounded-md bg-gray-50 px-3 py-2 text-xs text-gray-600">{REDACTED_QUESTIONS_NOTE}</p> : null}
        {questions.length === 0 ? (
          <p className="py-6 text-center text-sm text-gray-500">No questions asked in this period.</p>
        ) : (
          <ol aria-label="Most asked questions" className="space-y-3">
            {questions.map((question, index) => (
              <li key={`${index}-${question.question}`} className="min-w-0">
                <div className="flex items-baseline justify-between gap-3 text-sm">
                  <span className="min-w-0 break-words text-gray-800">
                    <span className="mr-1.5 text-xs text-gray-500 tabular-nums">{index + 1}.</span>
                    {question.question}
                  </span>
                  <span
                    className="shrink-0 font-medium text-gray-900 tabular-nums"
                    aria-label={`asked ${formatCount(question.count)} times`}
                  >
                    {formatCount(question.count)}
                  </span>
                </div>
                <div className="mt-1 h-1.5 overflow-hidden rounded-full bg-gray-100" aria-hidden="true">
                  <div
                    className="h-full rounded-full bg-brand-400"
                    style={{ width: `${most > 0 ? Math.max(4, (question.count / most) * 100) : 0}%` }}
                  />
                </div>
              </li>
            ))}
          </ol>
        )}
      </CardBody>
    </Card>
  );
}
