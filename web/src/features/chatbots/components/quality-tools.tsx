import { useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Dialog } from '../../../components/ui/dialog';
import { SelectField } from '../../../components/ui/select-field';
import { Switch } from '../../../components/ui/switch';
import { TextField } from '../../../components/ui/text-field';
import { TextareaField } from '../../../components/ui/textarea-field';
import type { ProposedTestCaseFieldsFragment, QualitySettingsFieldsFragment, TestRunJudgeQuery } from '../../../gql/graphql';
import { modelOptionLabel } from '../model-settings';
import { useModels } from '../hooks/use-models';
import {
  useAcceptProposedTestCase,
  useDiscardProposedTestCase,
  useGenerateTestCases,
  useProposedTestCases,
  useQualitySettings,
  useSaveQualitySettings,
} from '../hooks/use-tests';
import { editedProposal, parseCount, parseRubricText } from '../quality-form';

// The Tests section's judge, generated cases and regression mail
// (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md).

/** The default model's choice: the judge's model left to the deployment. */
const DEFAULT_MODEL = '';

function SettingsForm({ chatbotId, saved }: { chatbotId: string; saved: QualitySettingsFieldsFragment }) {
  const { models } = useModels();
  const save = useSaveQualitySettings(chatbotId);
  const [judgeEnabled, setJudgeEnabled] = useState(saved.judgeEnabled);
  const [judgeModelId, setJudgeModelId] = useState(saved.judgeModelId ?? DEFAULT_MODEL);
  const [rubric, setRubric] = useState(saved.rubric.join('\n'));
  const [emailOnRegression, setEmailOnRegression] = useState(saved.emailOnRegression);
  const [invalid, setInvalid] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const defaultModel = models?.find((m) => m.isDefault);

  async function submit() {
    setNotice(null);
    const parsed = parseRubricText(rubric);
    if ('error' in parsed) {
      setInvalid(parsed.error);
      return;
    }
    setInvalid(null);
    const result = await save.act({ judgeEnabled, judgeModelId: judgeModelId || null, rubric: parsed.rubric, emailOnRegression });
    if (result) {
      setRubric(result.rubric.join('\n'));
      setNotice('Quality settings saved');
    }
  }

  return (
    <form
      aria-label="Judge and regression mail"
      className="space-y-4 rounded-xl border border-gray-200 p-4"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {invalid || save.error ? <Alert>{invalid ?? save.error}</Alert> : null}
      {notice ? <Alert tone="success">{notice}</Alert> : null}
      <Switch
        label="Grade answers with a judge"
        description="A model grades each answer against the rubric; its verdict is shown beside the checks, which alone decide a pass. Billed like answers."
        checked={judgeEnabled}
        onChange={setJudgeEnabled}
      />
      {judgeEnabled ? (
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            label="Judge's model"
            name="judge-model"
            value={judgeModelId}
            options={[
              { value: DEFAULT_MODEL, label: defaultModel ? `Default (${defaultModel.displayName})` : 'Default' },
              ...(models ?? []).map((m) => ({ value: m.id, label: modelOptionLabel(m), disabled: !m.allowed })),
            ]}
            onChange={(e) => setJudgeModelId(e.target.value)}
          />
          <TextareaField
            label="Rubric"
            name="judge-rubric"
            rows={4}
            hint="One criterion a line, up to 8. Empty: faithful to the cited passages, answers the question, tone."
            value={rubric}
            onChange={(e) => setRubric(e.target.value)}
            className="sm:col-span-2"
          />
        </div>
      ) : null}
      <Switch
        label="Email me when a run has regressions"
        description="The workspace's owners get one mail per run listing the cases that passed before and fail now."
        checked={emailOnRegression}
        onChange={setEmailOnRegression}
      />
      <div className="flex justify-end">
        <Button type="submit" variant="secondary" size="sm" busy={save.busy} busyLabel="Saving…">
          Save quality settings
        </Button>
      </div>
    </form>
  );
}

/** The judge's switch, model and rubric, and the regression mail's switch. */
export function QualitySettingsPanel({ chatbotId }: { chatbotId: string }) {
  const { settings, error } = useQualitySettings(chatbotId);
  if (error) return <Alert>{error}</Alert>;
  if (!settings) return null;
  // The form keeps what the owner typed: it starts from the settings as first loaded, and a save answers the saved ones.
  return <SettingsForm key={chatbotId} chatbotId={chatbotId} saved={settings} />;
}

/** The judge's verdict of one answer, beside its checks: each criterion passed or not, with its reason; or the judge's error. */
export function JudgeVerdicts({
  result,
}: {
  result: Pick<TestRunJudgeQuery['testRun']['results'][number], 'judgeVerdicts' | 'judgeError'> | undefined;
}) {
  if (!result) return null;
  if (result.judgeError) return <p className="mt-1.5 text-xs text-amber-800">{result.judgeError}</p>;
  if (result.judgeVerdicts.length === 0) return null;
  const passed = result.judgeVerdicts.filter((v) => v.passed).length;
  return (
    <div className="mt-2 rounded-lg bg-gray-50 px-3 py-2" aria-label="Judge's verdict" role="group">
      <p className="text-xs font-medium text-gray-700">
        Judge: {passed} of {result.judgeVerdicts.length} criteria met
      </p>
      <ul className="mt-1 space-y-0.5 text-xs">
        {result.judgeVerdicts.map((v, i) => (
          <li key={i} className={v.passed ? 'text-gray-700' : 'text-red-700'}>
            <span aria-hidden="true">{v.passed ? '✓' : '✗'}</span> <span className="font-medium">{v.criterion}</span>{' '}
            <span className="sr-only">{v.passed ? 'met' : 'not met'}</span> — {v.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** "Generate cases": how many, then the proposals wait below the test cases. */
export function GenerateDialog({ chatbotId, onClose }: { chatbotId: string; onClose: () => void }) {
  const generate = useGenerateTestCases(chatbotId);
  const [count, setCount] = useState('5');
  const [invalid, setInvalid] = useState<string | null>(null);

  async function submit() {
    const parsed = parseCount(count);
    if ('error' in parsed) {
      setInvalid(parsed.error);
      return;
    }
    setInvalid(null);
    const got = await generate.act(parsed.count);
    if (got) onClose();
  }

  return (
    <Dialog
      title="Generate cases"
      description={
        <p>
          The chatbot's model writes questions a visitor could ask, with the facts a good answer states, from its knowledge entries. They
          wait for you to accept, edit or discard them. Billed like an answer.
        </p>
      }
      onClose={onClose}
    >
      <form
        className="space-y-4"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {invalid || generate.error ? <Alert>{invalid ?? generate.error}</Alert> : null}
        <TextField
          label="Number of cases"
          name="generate-count"
          type="number"
          inputMode="numeric"
          min={1}
          max={20}
          hint="1 to 20. Questions the tests already have are left out."
          value={count}
          onChange={(e) => setCount(e.target.value)}
        />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button type="button" variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" busy={generate.busy} busyLabel="Generating…">
            Generate
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function ProposalItem({ chatbotId, proposal }: { chatbotId: string; proposal: ProposedTestCaseFieldsFragment }) {
  const accept = useAcceptProposedTestCase(chatbotId);
  const discard = useDiscardProposedTestCase(chatbotId);
  const [editing, setEditing] = useState(false);
  const [question, setQuestion] = useState(proposal.question);
  const [facts, setFacts] = useState(proposal.facts.join('\n'));
  const [invalid, setInvalid] = useState<string | null>(null);
  const error = invalid ?? accept.error ?? discard.error;

  async function acceptEdited() {
    const edit = editedProposal(question, facts);
    if ('error' in edit) {
      setInvalid(edit.error);
      return;
    }
    setInvalid(null);
    await accept.act(proposal.id, edit);
  }

  return (
    <li className="space-y-2 py-3">
      {error ? <Alert>{error}</Alert> : null}
      {editing ? (
        <div className="space-y-3">
          <TextField
            label="Question"
            name={`proposal-question-${proposal.id}`}
            value={question}
            onChange={(e) => setQuestion(e.target.value)}
          />
          <TextareaField
            label="Facts the answer must state"
            name={`proposal-facts-${proposal.id}`}
            rows={3}
            hint="One a line: each becomes a “contains” check."
            value={facts}
            onChange={(e) => setFacts(e.target.value)}
          />
        </div>
      ) : (
        <div className="min-w-0">
          <p className="text-sm font-medium break-words text-gray-900">{proposal.question}</p>
          <ul className="mt-0.5 text-xs text-gray-600">
            {proposal.facts.map((f, i) => (
              <li key={i}>Contains: {f}</li>
            ))}
          </ul>
        </div>
      )}
      <div className="flex flex-wrap justify-end gap-2">
        {editing ? (
          <>
            <Button variant="secondary" size="sm" onClick={() => setEditing(false)}>
              Cancel edit
            </Button>
            <Button size="sm" busy={accept.busy} busyLabel="Accepting…" onClick={() => void acceptEdited()}>
              Accept edited
            </Button>
          </>
        ) : (
          <>
            <Button
              variant="secondary"
              size="sm"
              disabled={discard.busy || accept.busy}
              onClick={() => void discard.act(proposal.id)}
              aria-label={`Discard: ${proposal.question}`}
            >
              Discard
            </Button>
            <Button variant="secondary" size="sm" onClick={() => setEditing(true)} aria-label={`Edit: ${proposal.question}`}>
              Edit
            </Button>
            <Button
              size="sm"
              busy={accept.busy}
              busyLabel="Accepting…"
              disabled={discard.busy}
              onClick={() => void accept.act(proposal.id)}
              aria-label={`Accept: ${proposal.question}`}
            >
              Accept
            </Button>
          </>
        )}
      </div>
    </li>
  );
}

/** Generated cases waiting for the owner: none joins the tests until accepted. */
export function ProposedCases({ chatbotId }: { chatbotId: string }) {
  const { proposed, error } = useProposedTestCases(chatbotId);
  if (error) return <Alert>{error}</Alert>;
  if (proposed.length === 0) return null;
  return (
    <section aria-label="Proposed cases" className="rounded-xl border border-brand-200 bg-brand-50/40 p-4">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="text-sm font-semibold text-gray-900">Proposed cases ({proposed.length})</h3>
        <Badge tone="brand">Generated</Badge>
      </div>
      <p className="mt-0.5 text-xs text-gray-600">Accept the ones worth keeping; they join the tests and the next runs.</p>
      <ul className="divide-y divide-brand-100">
        {proposed.map((p) => (
          <ProposalItem key={p.id} chatbotId={chatbotId} proposal={p} />
        ))}
      </ul>
    </section>
  );
}
