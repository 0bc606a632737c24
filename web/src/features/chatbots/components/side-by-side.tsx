import { useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { Dialog } from '../../../components/ui/dialog';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import { TextareaField } from '../../../components/ui/textarea-field';
import type { TestResultFieldsFragment, TestRunQuery, TestTotalsFieldsFragment } from '../../../gql/graphql';
import { formatDollars } from '../../../lib/format';
import { modelOptions } from '../model-settings';
import { useModels } from '../hooks/use-models';
import { useApplyTestDraft, useRunEstimate, useStartTestRun } from '../hooks/use-tests';
import { MAX_INSTRUCTIONS_CHARS, MAX_TEMPERATURE } from '../hooks/use-update-chatbot-voice';

/** What the chatbot answers with now: the draft starts from it. */
export interface CurrentSettings {
  model: { id: string; displayName: string };
  instructions: string;
  temperature: number | null | undefined;
}

const percent = (rate: number | null | undefined) => (rate === null || rate === undefined ? '—' : `${Math.round(rate * 100)} %`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * "Compare a draft": another model, other instructions or another temperature, and a run that
 * answers every case with the chatbot's settings and with the draft (docs/adr/0058-side-by-side-runs.md).
 */
export function DraftDialog({
  chatbotId,
  current,
  onClose,
  onStarted,
}: {
  chatbotId: string;
  current: CurrentSettings;
  onClose: () => void;
  onStarted: () => void;
}) {
  const { models, error: modelsError } = useModels();
  const { estimate, error: estimateError } = useRunEstimate(chatbotId, true);
  const start = useStartTestRun(chatbotId);
  const [modelId, setModelId] = useState(current.model.id);
  const [instructions, setInstructions] = useState(current.instructions);
  const [temperature, setTemperature] = useState(
    current.temperature === null || current.temperature === undefined ? '' : String(current.temperature),
  );
  const [invalid, setInvalid] = useState<string | null>(null);
  const draftModel = models?.find((m) => m.id === modelId);
  // Each case is answered twice: once as the chatbot is (the estimate), once with the draft's model.
  const cost = estimate && draftModel ? Number(estimate.estimatedCost) + estimate.cases * Number(draftModel.typicalAnswerCost) : null;

  async function submit() {
    const t = temperature.trim() === '' ? null : Number(temperature);
    if (t !== null && !(Number.isFinite(t) && t >= 0 && t <= MAX_TEMPERATURE)) {
      setInvalid(`The temperature is between 0 and ${MAX_TEMPERATURE}.`);
      return;
    }
    if ([...instructions].length > MAX_INSTRUCTIONS_CHARS) {
      setInvalid(`The instructions have at most ${MAX_INSTRUCTIONS_CHARS} characters.`);
      return;
    }
    setInvalid(null);
    if (await start.act({ modelId, instructions, temperature: t })) onStarted();
  }

  const description =
    estimate && cost !== null ? (
      <p>
        {estimate.cases === 1 ? 'The case' : `Each of the ${estimate.cases} cases`} is answered twice, with the current settings and with
        the draft: about <strong>{formatDollars(cost, 4)}</strong> of credit, billed like answers. Nothing changes until you apply the
        draft.
      </p>
    ) : (
      <p>Estimating the cost…</p>
    );
  return (
    <Dialog title="Compare a draft" description={description} onClose={onClose}>
      <form
        className="space-y-4"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {modelsError || estimateError || start.error || invalid ? (
          <Alert>{invalid ?? start.error ?? modelsError ?? estimateError}</Alert>
        ) : null}
        {models ? (
          <SelectField
            label="Model"
            name="draft-model"
            value={modelId}
            options={modelOptions(models, current.model)}
            onChange={(e) => setModelId(e.target.value)}
          />
        ) : null}
        <TextareaField
          label="Instructions"
          name="draft-instructions"
          rows={4}
          value={instructions}
          onChange={(e) => setInstructions(e.target.value)}
        />
        <TextField
          label="Temperature"
          name="draft-temperature"
          type="number"
          inputMode="decimal"
          min={0}
          max={MAX_TEMPERATURE}
          step={0.1}
          placeholder="Default"
          hint={`0 to ${MAX_TEMPERATURE}; empty for the default.`}
          value={temperature}
          onChange={(e) => setTemperature(e.target.value)}
        />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button type="button" variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" busy={start.busy} busyLabel="Starting…" disabled={!estimate || !models}>
            Compare
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

type Detail = TestRunQuery['testRun'];

function Totals({ totals, draft }: { totals: TestTotalsFieldsFragment; draft: TestTotalsFieldsFragment }) {
  const rows: [string, string, string][] = [
    ['Pass rate', percent(totals.passRate), percent(draft.passRate)],
    ['Passed', `${totals.passed} of ${totals.answered}`, `${draft.passed} of ${draft.answered}`],
    ['Cost per answer', formatDollars(totals.costPerAnswer, 5), formatDollars(draft.costPerAnswer, 5)],
    ['Median latency', seconds(totals.medianLatencyMs), seconds(draft.medianLatencyMs)],
  ];
  return (
    <table className="w-full text-sm" aria-label="Totals">
      <thead>
        <tr className="text-left text-xs font-medium text-gray-500">
          <th scope="col" className="py-1 pr-3 font-medium">
            <span className="sr-only">Total</span>
          </th>
          <th scope="col" className="py-1 pr-3 font-medium">
            Current
          </th>
          <th scope="col" className="py-1 font-medium">
            Draft
          </th>
        </tr>
      </thead>
      <tbody className="divide-y divide-gray-100">
        {rows.map(([label, a, b]) => (
          <tr key={label}>
            <th scope="row" className="py-1.5 pr-3 text-left text-xs font-medium text-gray-500">
              {label}
            </th>
            <td className="py-1.5 pr-3 font-medium text-gray-900 tabular-nums">{a}</td>
            <td className="py-1.5 font-medium text-gray-900 tabular-nums">{b}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Answer({ side, result }: { side: string; result: TestResultFieldsFragment | undefined }) {
  if (!result)
    return (
      <div className="rounded-lg bg-gray-50 p-3 text-sm text-gray-500">
        <p className="text-xs font-medium text-gray-500">{side}</p>
        <p className="mt-1">Not answered</p>
      </div>
    );
  const tone = result.error ? 'warning' : result.passed ? 'success' : 'danger';
  const label = result.error ? 'Not run' : result.passed ? 'Passed' : 'Failed';
  return (
    <div className="rounded-lg bg-gray-50 p-3">
      <div className="flex items-center justify-between gap-2">
        <p className="text-xs font-medium text-gray-500">{side}</p>
        <Badge tone={tone}>{label}</Badge>
      </div>
      {result.error ? <p className="mt-1 text-sm text-amber-800">{result.error}</p> : null}
      {result.answer ? <p className="mt-1 text-sm break-words whitespace-pre-wrap text-gray-700">{result.answer}</p> : null}
      <ul className="mt-1.5 space-y-0.5 text-xs">
        {result.checks.map((c, i) => (
          <li key={i} className={c.passed ? 'text-emerald-700' : 'text-red-700'}>
            {c.passed ? '✓ ' : '✗ '}
            {c.passed ? checkLabel(c.check) : c.detail}
          </li>
        ))}
      </ul>
    </div>
  );
}

function checkLabel(check: TestResultFieldsFragment['checks'][number]['check']): string {
  switch (check.kind) {
    case 'contains':
      return `Says ${check.phrases.join(' / ')}`;
    case 'not_contains':
      return `Does not say ${check.phrases.join(', ')}`;
    case 'cites':
      return 'Cites the entry';
    case 'no_answer':
      return 'Says it does not know';
    case 'offers_person':
      return 'Offers a person';
    default:
      return check.kind;
  }
}

/** A side by side's results: each side's totals, each case's two answers next to each other, and "Apply draft". */
export function SideBySide({ chatbotId, detail, underWay }: { chatbotId: string; detail: Detail; underWay: boolean }) {
  const apply = useApplyTestDraft(chatbotId);
  const [confirming, setConfirming] = useState(false);
  const [applied, setApplied] = useState(false);
  const draft = detail.run.draft!;
  const drafts = new Map(detail.draftResults.map((r) => [r.caseId, r]));
  return (
    <div className="space-y-3">
      <div className="rounded-xl border border-brand-100 bg-brand-50/60 p-3 text-sm text-gray-800">
        <p>
          <span className="font-medium">Draft:</span> {draft.modelId}, temperature {draft.temperature ?? 'default'}
          {draft.instructions ? (
            <>
              , instructions “<span className="break-words">{draft.instructions}</span>”
            </>
          ) : (
            ', no instructions'
          )}
        </p>
      </div>
      {detail.draftTotals ? <Totals totals={detail.totals} draft={detail.draftTotals} /> : null}
      {applied ? <Alert tone="success">The draft's settings are the chatbot's now.</Alert> : null}
      {!underWay && !applied ? (
        <div className="flex justify-end">
          <Button onClick={() => setConfirming(true)}>Apply draft</Button>
        </div>
      ) : null}
      <ol aria-label="Results side by side" className="space-y-2">
        {detail.results.map((r) => (
          <li key={r.caseId} className="rounded-xl border border-gray-200 p-3">
            <div className="flex flex-wrap items-start justify-between gap-2">
              <p className="min-w-0 text-sm font-medium break-words text-gray-900">{r.question}</p>
              {r.regression ? <Badge tone="danger">Regression</Badge> : null}
            </div>
            <div className="mt-2 grid gap-2 sm:grid-cols-2">
              <Answer side="Current" result={r} />
              <Answer side="Draft" result={drafts.get(r.caseId)} />
            </div>
          </li>
        ))}
      </ol>
      {confirming ? (
        <ConfirmDialog
          title="Apply draft"
          confirmLabel="Apply draft"
          busyLabel="Applying…"
          busy={apply.busy}
          error={apply.error}
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            if (await apply.act(detail.run.id)) {
              setConfirming(false);
              setApplied(true);
            }
          }}
        >
          <p>
            The chatbot answers with {draft.modelId}, the draft's instructions and temperature from now on. The tests run again after the
            change.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
