import { lazy, Suspense, useRef, useState, type ChangeEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { Dialog } from '../../../components/ui/dialog';
import { Spinner } from '../../../components/ui/spinner';
import type { TestCaseFieldsFragment, TestRunFieldsFragment, TestRunQuery } from '../../../gql/graphql';
import { downloadTextFile } from '../../../lib/download-file';
import { formatDateTime, formatDollars } from '../../../lib/format';
import { describeCheck, emptyTestCase, testCaseForm } from '../test-case-form';
import {
  useCancelTestRun,
  useDeleteTestCase,
  useExportTestCases,
  useImportTestCases,
  useRunEstimate,
  useStartTestRun,
  useTests,
} from '../hooks/use-tests';
import { TestCaseEditor } from './test-case-editor';
import { DraftDialog, SideBySide, type CurrentSettings } from './side-by-side';
import { GenerateDialog, JudgeVerdicts, ProposedCases, QualitySettingsPanel } from './quality-tools';

const PassRateChart = lazy(() => import('./pass-rate-chart'));

type Result = TestRunQuery['testRun']['results'][number];
type Entry = { id: string; title: string };

const percent = (rate: number | null | undefined) => (rate === null || rate === undefined ? '—' : `${Math.round(rate * 100)} %`);

const STATUS: Record<string, string> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  cancelled: 'Cancelled',
  stopped: 'Stopped',
};

function RunSummary({ run }: { run: TestRunFieldsFragment }) {
  return (
    <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-5">
      {[
        ['Pass rate', percent(run.passRate)],
        ['Passed', `${run.passed} of ${run.totalCases}`],
        ['Regressions', String(run.regressions)],
        ['Not run', String(run.notRun)],
        ['Cost', formatDollars(run.cost, 4)],
      ].map(([label, value]) => (
        <div key={label}>
          <dt className="text-xs font-medium text-gray-500">{label}</dt>
          <dd className="mt-0.5 font-medium text-gray-900 tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function ResultItem({ result, verdict }: { result: Result; verdict: Parameters<typeof JudgeVerdicts>[0]['result'] }) {
  const tone = result.regression ? 'danger' : result.error ? 'warning' : result.passed ? 'success' : 'danger';
  const label = result.regression ? 'Regression' : result.error ? 'Not run' : result.passed ? 'Passed' : 'Failed';
  return (
    <li className="rounded-xl border border-gray-200 p-3">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <p className="min-w-0 text-sm font-medium break-words text-gray-900">{result.question}</p>
        <Badge tone={tone}>{label}</Badge>
      </div>
      {result.error ? <p className="mt-1 text-sm text-amber-800">{result.error}</p> : null}
      {result.answer ? <p className="mt-1 text-sm break-words whitespace-pre-wrap text-gray-700">{result.answer}</p> : null}
      {result.checks.some((c) => !c.passed) ? (
        <ul className="mt-1.5 space-y-0.5 text-xs text-red-700">
          {result.checks
            .filter((c) => !c.passed)
            .map((c, i) => (
              <li key={i}>{c.detail}</li>
            ))}
        </ul>
      ) : null}
      <JudgeVerdicts result={verdict} />
    </li>
  );
}

function CaseItem({
  testCase,
  entries,
  onEdit,
  onDelete,
}: {
  testCase: TestCaseFieldsFragment;
  entries: Entry[];
  onEdit: () => void;
  onDelete: () => void;
}) {
  const titleOf = (id: string) => entries.find((e) => e.id === id)?.title ?? 'a removed entry';
  return (
    <li className="flex flex-wrap items-start justify-between gap-3 py-3">
      <div className="min-w-0 flex-1">
        <p className="text-sm font-medium break-words text-gray-900">{testCase.question}</p>
        <ul className="mt-0.5 text-xs text-gray-600">
          {testCase.checks.map((c, i) => (
            <li key={i}>{describeCheck(c, titleOf)}</li>
          ))}
        </ul>
      </div>
      <div className="flex gap-2">
        <Button variant="secondary" size="sm" onClick={onEdit} aria-label={`Edit test: ${testCase.question}`}>
          Edit
        </Button>
        <Button variant="secondary" size="sm" onClick={onDelete} aria-label={`Delete test: ${testCase.question}`}>
          Delete
        </Button>
      </div>
    </li>
  );
}

function RunDialog({ chatbotId, onClose, onStarted }: { chatbotId: string; onClose: () => void; onStarted: () => void }) {
  const { estimate, error } = useRunEstimate(chatbotId, true);
  const start = useStartTestRun(chatbotId);
  const description = estimate ? (
    <p>
      {estimate.cases} {estimate.cases === 1 ? 'case' : 'cases'} answered with {estimate.model}: about{' '}
      <strong>{formatDollars(estimate.estimatedCost, 4)}</strong> of credit ({formatDollars(estimate.costPerAnswer, 5)} per typical answer),
      billed like answers.
    </p>
  ) : (
    <p>Estimating the cost…</p>
  );
  return (
    <Dialog title="Run tests" description={description} onClose={onClose}>
      <div className="space-y-4">
        {error || start.error ? <Alert>{error ?? start.error}</Alert> : null}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button
            busy={start.busy}
            busyLabel="Starting…"
            disabled={!estimate}
            onClick={async () => {
              if (await start.act()) onStarted();
            }}
          >
            Run tests
          </Button>
        </div>
      </div>
    </Dialog>
  );
}

/**
 * The Tests section of a chatbot's settings (docs/adr/0050-quality-loop.md): its test cases, a run
 * on demand (with its cost first), the latest run's results with regressions first, and the pass
 * rate over time. Runs also start on their own after a change of the knowledge, voice or model.
 */
export function TestsSection({ chatbotId, entries, current }: { chatbotId: string; entries: Entry[]; current: CurrentSettings }) {
  const tests = useTests(chatbotId);
  const [editing, setEditing] = useState<TestCaseFieldsFragment | 'new' | null>(null);
  const [running, setRunning] = useState(false);
  const [comparing, setComparing] = useState(false);
  const [generating, setGenerating] = useState(false);
  const [deleting, setDeleting] = useState<TestCaseFieldsFragment | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const remove = useDeleteTestCase(chatbotId);
  const cancel = useCancelTestRun(chatbotId);
  const importer = useImportTestCases(chatbotId);
  const exporter = useExportTestCases(chatbotId);
  const fileInput = useRef<HTMLInputElement>(null);

  async function importFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setNotice(null);
    const format = file.name.toLowerCase().endsWith('.jsonl') ? 'jsonl' : 'csv';
    const imported = await importer.act(format, await file.text());
    if (imported !== null) setNotice(`${imported} test ${imported === 1 ? 'case' : 'cases'} imported`);
  }

  async function exportFile(format: 'csv' | 'jsonl') {
    const content = await exporter.act(format);
    if (content !== null) downloadTextFile(`tests.${format}`, content, format === 'csv' ? 'text/csv' : 'application/jsonl');
  }

  const latest = tests.latest;
  const history = [...tests.runs]
    .reverse()
    .filter((r) => r.passRate !== null && r.passRate !== undefined)
    .map((r) => ({ id: r.id, createdAt: r.createdAt, rate: (r.passRate ?? 0) * 100 }));

  return (
    <Card>
      <CardHeader
        title="Tests"
        description="Questions with what a good answer must do. They run after every change of the knowledge, voice or model, and on demand."
        action={
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" onClick={() => setComparing(true)} disabled={tests.underWay || tests.cases.length === 0}>
              Compare a draft
            </Button>
            <Button onClick={() => setRunning(true)} disabled={tests.underWay || tests.cases.length === 0}>
              {tests.underWay ? 'Running…' : 'Run tests'}
            </Button>
          </div>
        }
      />
      <CardBody className="space-y-6">
        {tests.error ? <Alert>{tests.error}</Alert> : null}
        {importer.error ? <Alert>{importer.error}</Alert> : null}
        {exporter.error ? <Alert>{exporter.error}</Alert> : null}
        {cancel.error ? <Alert>{cancel.error}</Alert> : null}
        {notice ? <Alert tone="success">{notice}</Alert> : null}
        {tests.loading ? (
          <div className="flex justify-center py-6 text-brand-600">
            <Spinner className="size-6" label="Loading tests" />
          </div>
        ) : null}

        {latest ? (
          <section aria-label="Latest run" className="space-y-3">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <h3 className="text-sm font-semibold text-gray-900">
                Latest run: {STATUS[latest.run.status] ?? latest.run.status}
                <span className="ml-2 font-normal text-gray-500">
                  {latest.run.draft ? 'side by side with a draft' : latest.run.trigger === 'automatic' ? 'after a change' : 'on demand'},{' '}
                  {formatDateTime(latest.run.createdAt)}
                </span>
              </h3>
              {tests.underWay ? (
                <Button variant="secondary" size="sm" disabled={cancel.busy} onClick={() => void cancel.act(latest.run.id)}>
                  Cancel run
                </Button>
              ) : null}
            </div>
            <RunSummary run={latest.run} />
            {latest.run.stopReason ? <Alert tone="info">{latest.run.stopReason}</Alert> : null}
            {latest.run.judgeModel ? (
              <p className="text-xs text-gray-500">
                Judged by {latest.run.judgeModel}: its verdicts are shown beside the checks, which alone decide a pass.
              </p>
            ) : null}
            {latest.run.regressions > 0 ? (
              <Alert>
                {latest.run.regressions} {latest.run.regressions === 1 ? 'case passed' : 'cases passed'} before and{' '}
                {latest.run.regressions === 1 ? 'fails' : 'fail'} now.
              </Alert>
            ) : null}
            {latest.run.draft ? (
              <SideBySide key={latest.run.id} chatbotId={chatbotId} detail={latest} underWay={tests.underWay} />
            ) : (
              <ol aria-label="Results" className="space-y-2">
                {latest.results.map((r) => (
                  <ResultItem key={r.caseId} result={r} verdict={tests.verdicts.get(r.caseId)} />
                ))}
              </ol>
            )}
          </section>
        ) : null}

        {history.length > 1 ? (
          <section aria-label="Pass rate over time">
            <h3 className="mb-2 text-sm font-semibold text-gray-900">Pass rate over time</h3>
            <Suspense fallback={<div style={{ height: 160 }} />}>
              <PassRateChart points={history} />
            </Suspense>
          </section>
        ) : null}

        <section aria-label="Judge and regression mail" className="space-y-2">
          <h3 className="text-sm font-semibold text-gray-900">Judge and regression mail</h3>
          <QualitySettingsPanel chatbotId={chatbotId} />
        </section>

        <section aria-label="Test cases">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h3 className="text-sm font-semibold text-gray-900">Test cases ({tests.cases.length})</h3>
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" size="sm" onClick={() => setEditing('new')}>
                Add test case
              </Button>
              <Button variant="secondary" size="sm" onClick={() => setGenerating(true)} disabled={entries.length === 0}>
                Generate cases
              </Button>
              <Button variant="secondary" size="sm" disabled={importer.busy} onClick={() => fileInput.current?.click()}>
                Import
              </Button>
              <input
                ref={fileInput}
                type="file"
                accept=".csv,.jsonl,text/csv"
                className="sr-only"
                aria-label="Import test cases (CSV or JSONL)"
                tabIndex={-1}
                onChange={importFile}
              />
              <Button
                variant="secondary"
                size="sm"
                disabled={exporter.busy || tests.cases.length === 0}
                onClick={() => void exportFile('csv')}
              >
                Export CSV
              </Button>
              <Button
                variant="secondary"
                size="sm"
                disabled={exporter.busy || tests.cases.length === 0}
                onClick={() => void exportFile('jsonl')}
              >
                Export JSONL
              </Button>
            </div>
          </div>
          <div className="mt-3">
            <ProposedCases chatbotId={chatbotId} />
          </div>
          {tests.cases.length === 0 && !tests.loading ? (
            <p className="mt-2 text-sm text-gray-500">No test cases yet. Add one here, or use “Add to tests” on an answer in History.</p>
          ) : (
            <ul className="divide-y divide-gray-100">
              {tests.cases.map((c) => (
                <CaseItem key={c.id} testCase={c} entries={entries} onEdit={() => setEditing(c)} onDelete={() => setDeleting(c)} />
              ))}
            </ul>
          )}
        </section>
      </CardBody>

      {editing ? (
        <Dialog title={editing === 'new' ? 'Add test case' : 'Edit test case'} onClose={() => setEditing(null)}>
          <TestCaseEditor
            chatbotId={chatbotId}
            initial={editing === 'new' ? emptyTestCase() : testCaseForm(editing)}
            entries={entries}
            source={editing === 'new' ? 'manual' : editing.source}
            caseId={editing === 'new' ? undefined : editing.id}
            submitLabel="Save test case"
            onSaved={() => setEditing(null)}
            onCancel={() => setEditing(null)}
          />
        </Dialog>
      ) : null}
      {running ? (
        <RunDialog
          chatbotId={chatbotId}
          onClose={() => setRunning(false)}
          onStarted={() => {
            setRunning(false);
            void tests.refreshRuns();
          }}
        />
      ) : null}
      {comparing ? (
        <DraftDialog
          chatbotId={chatbotId}
          current={current}
          onClose={() => setComparing(false)}
          onStarted={() => {
            setComparing(false);
            void tests.refreshRuns();
          }}
        />
      ) : null}
      {generating ? <GenerateDialog chatbotId={chatbotId} onClose={() => setGenerating(false)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title="Delete test case"
          confirmLabel="Delete"
          busyLabel="Deleting…"
          busy={remove.busy}
          error={remove.error}
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            if (await remove.act(deleting.id)) setDeleting(null);
          }}
        >
          <p>“{deleting.question}” and its checks are deleted. Past runs keep their results.</p>
        </ConfirmDialog>
      ) : null}
    </Card>
  );
}
