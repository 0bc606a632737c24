import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { TextareaField } from '../../../components/ui/textarea-field';
import { testCaseInput, type TestCaseFormValues } from '../test-case-form';
import { useSaveTestCase } from '../hooks/use-tests';

const CHECKBOX =
  'mt-0.5 size-4 rounded border-gray-300 accent-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500';

function Check({ label, checked, onChange }: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  const id = useId();
  return (
    <div className="flex items-start gap-2.5">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} className={CHECKBOX} />
      <label htmlFor={id} className="text-sm text-gray-800">
        {label}
      </label>
    </div>
  );
}

interface TestCaseEditorProps {
  chatbotId: string;
  initial: TestCaseFormValues;
  /** The knowledge entries a case may require to be cited. */
  entries: ReadonlyArray<{ id: string; title: string }>;
  /** manual, history or improve. */
  source: string;
  caseId?: string;
  submitLabel: string;
  onSaved: () => void;
  onCancel?: () => void;
}

/** A test case's question and checks: written by hand in Tests, or from an answer in History. */
export function TestCaseEditor({ chatbotId, initial, entries, source, caseId, submitLabel, onSaved, onCancel }: TestCaseEditorProps) {
  const [form, setForm] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useSaveTestCase(chatbotId);
  const set = <K extends keyof TestCaseFormValues>(key: K, value: TestCaseFormValues[K]) => setForm((f) => ({ ...f, [key]: value }));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = testCaseInput(form, source);
    if (typeof input === 'string') {
      setProblem(input);
      return;
    }
    setProblem(null);
    if (await save.act(input, caseId)) onSaved();
  }

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      {problem || save.error ? <Alert>{problem ?? save.error}</Alert> : null}
      <TextField label="Question" value={form.question} onChange={(e) => set('question', e.target.value)} required maxLength={4000} />
      <TextareaField
        label="Must contain"
        hint='One fact per line; acceptable phrasings of a fact separated by "|" (e.g. open from ten | open from 10). Case and spacing do not matter.'
        rows={3}
        value={form.mustContain}
        onChange={(e) => set('mustContain', e.target.value)}
      />
      <TextareaField
        label="Must not contain"
        hint="One phrase per line."
        rows={2}
        value={form.mustNotContain}
        onChange={(e) => set('mustNotContain', e.target.value)}
      />
      {entries.length ? (
        <fieldset>
          <legend className="mb-1.5 text-sm font-medium text-gray-800">Must cite</legend>
          <div className="max-h-32 space-y-1.5 overflow-y-auto">
            {entries.map((entry) => (
              <Check
                key={entry.id}
                label={entry.title || 'Untitled entry'}
                checked={form.cites.includes(entry.id)}
                onChange={(on) => set('cites', on ? [...form.cites, entry.id] : form.cites.filter((id) => id !== entry.id))}
              />
            ))}
          </div>
        </fieldset>
      ) : null}
      <div className="space-y-1.5">
        <Check label="Says it does not know" checked={form.noAnswer} onChange={(on) => set('noAnswer', on)} />
        <Check label="Offers a person" checked={form.offersPerson} onChange={(on) => set('offersPerson', on)} />
      </div>
      <TextField
        label="Written in (optional)"
        hint="The language the answer must be in, as a code such as fr, de or es."
        value={form.language}
        onChange={(e) => set('language', e.target.value)}
        maxLength={20}
      />
      <TextareaField
        label="The answer as it should be (optional)"
        rows={3}
        value={form.expectedAnswer}
        onChange={(e) => set('expectedAnswer', e.target.value)}
      />
      <div className="flex justify-end gap-2">
        {onCancel ? (
          <Button type="button" variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        ) : null}
        <Button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : submitLabel}
        </Button>
      </div>
    </form>
  );
}
