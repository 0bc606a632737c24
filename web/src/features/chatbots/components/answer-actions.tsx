import { useId, useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Dialog } from '../../../components/ui/dialog';
import { TextareaField } from '../../../components/ui/textarea-field';
import { emptyTestCase } from '../test-case-form';
import { useImproveAnswer } from '../hooks/use-tests';
import { TestCaseEditor } from './test-case-editor';

export const TEST_ADDED_MESSAGE = 'Added to tests';
export const ANSWER_IMPROVED_MESSAGE = 'Saved as a Q&A pair: the next visitor who asks gets this answer.';

/** Where a case added here comes from (the chat service's TestCase.source). */
export type TestCaseSource = 'history' | 'inbox' | 'analytics';

/**
 * "Add to tests" (docs/adr/0050-quality-loop.md): a test case of a visitor's question, the owner
 * saying what the answer must do, starting from the answer given (if any) and the entries it cited.
 * Under an answer in History and in the inbox's conversation, and beside an unanswered question in
 * Analytics.
 */
export function AddToTests({
  chatbotId,
  question,
  answer = '',
  sources = [],
  source,
}: {
  chatbotId: string;
  question: string;
  answer?: string;
  sources?: ReadonlyArray<{ entryId: string; title: string }>;
  source: TestCaseSource;
}) {
  const [open, setOpen] = useState(false);
  const [added, setAdded] = useState(false);
  const entries = sources.map((s) => ({ id: s.entryId, title: s.title }));
  const initial = { ...emptyTestCase(question, answer), cites: entries.map((e) => e.id) };
  return (
    <>
      <Button variant="secondary" size="sm" onClick={() => setOpen(true)}>
        Add to tests
      </Button>
      {added ? (
        <span role="status" className="text-xs text-green-700">
          {TEST_ADDED_MESSAGE}
        </span>
      ) : null}
      {open ? (
        <Dialog title="Add to tests" description={`“${question}”`} onClose={() => setOpen(false)}>
          <TestCaseEditor
            chatbotId={chatbotId}
            initial={initial}
            entries={entries}
            source={source}
            submitLabel="Add to tests"
            onSaved={() => {
              setOpen(false);
              setAdded(true);
            }}
            onCancel={() => setOpen(false)}
          />
        </Dialog>
      ) : null}
    </>
  );
}

interface AnswerActionsProps {
  chatbotId: string;
  /** The visitor's message the answer replied to. */
  question: string;
  answer: string;
  sources: ReadonlyArray<{ entryId: string; title: string }>;
}

/**
 * Under an answer in History (docs/adr/0050-quality-loop.md): "Add to tests" makes a test case of its
 * question (the owner says what the answer must do, starting from the answer given), and "Improve
 * answer" saves the answer as it should be as a Q&A pair, and optionally as a test case.
 */
export function AnswerActions({ chatbotId, question, answer, sources }: AnswerActionsProps) {
  const [open, setOpen] = useState<'improve' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [improved, setImproved] = useState(answer);
  const [addTest, setAddTest] = useState(true);
  const improve = useImproveAnswer(chatbotId);
  const checkId = useId();

  return (
    <div className="mt-1 flex flex-wrap items-center gap-2">
      <AddToTests chatbotId={chatbotId} question={question} answer={answer} sources={sources} source="history" />
      <Button variant="secondary" size="sm" onClick={() => setOpen('improve')}>
        Improve answer
      </Button>
      {notice ? (
        <span role="status" className="text-xs text-green-700">
          {notice}
        </span>
      ) : null}
      {open === 'improve' ? (
        <Dialog title="Improve answer" description={`“${question}”`} onClose={() => setOpen(null)}>
          <form
            className="space-y-4"
            onSubmit={async (event) => {
              event.preventDefault();
              if (!improved.trim()) return;
              if (await improve.act(question, improved.trim(), addTest)) {
                setOpen(null);
                setNotice(ANSWER_IMPROVED_MESSAGE);
              }
            }}
          >
            {improve.error ? <Alert>{improve.error}</Alert> : null}
            <TextareaField
              label="The answer as it should be"
              rows={5}
              value={improved}
              onChange={(e) => setImproved(e.target.value)}
              required
            />
            <div className="flex items-start gap-2.5">
              <input
                id={checkId}
                type="checkbox"
                checked={addTest}
                onChange={(e) => setAddTest(e.target.checked)}
                className="mt-0.5 size-4 rounded border-gray-300 accent-brand-600"
              />
              <label htmlFor={checkId} className="text-sm text-gray-800">
                Also add it to tests
              </label>
            </div>
            <div className="flex justify-end gap-2">
              <Button type="button" variant="secondary" onClick={() => setOpen(null)}>
                Cancel
              </Button>
              <Button type="submit" busy={improve.busy} busyLabel="Saving…" disabled={!improved.trim()}>
                Save answer
              </Button>
            </div>
          </form>
        </Dialog>
      ) : null}
    </div>
  );
}
