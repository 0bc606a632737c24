import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { SelectField } from '../../../components/ui/select-field';
import { Spinner } from '../../../components/ui/spinner';
import type { ChatbotModelSettingsFragment } from '../../../gql/graphql';
import { useModels } from '../hooks/use-models';
import { useUpdateChatbotModel } from '../hooks/use-update-chatbot-model';
import {
  fallbackOptions,
  modelChoiceForm,
  modelChoiceInput,
  modelOptions,
  NO_MODELS_MESSAGE,
  type ModelChoiceForm,
} from '../model-settings';

/**
 * The Model card: which of the offered language models answers the chatbot's visitors, priced per
 * typical answer, and an optional fallback tried when it fails. Models the plan does not allow are
 * listed disabled with "(Pro)" and the way to Pro; the server refuses them too.
 */
export function ModelSettingsCard({ chatbot }: { chatbot: ChatbotModelSettingsFragment }) {
  const { models, loading: loadingModels, error: modelsError } = useModels();
  const { save, loading, error, success } = useUpdateChatbotModel(chatbot.id);
  const [saved, setSaved] = useState<ModelChoiceForm>(() => modelChoiceForm(chatbot));
  const [form, setForm] = useState<ModelChoiceForm>(saved);
  const hintId = useId();

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const answer = await save(modelChoiceInput(saved, form));
    if (answer) {
      const choice = modelChoiceForm(answer);
      setSaved(choice);
      setForm(choice);
    }
  }

  const someLocked = models?.some((m) => !m.allowed) ?? false;

  return (
    <Card>
      <CardHeader title="Model" description="The language model that answers your visitors. Each answer is billed at its price." />
      <CardBody>
        {loadingModels ? (
          <div className="flex justify-center py-6 text-brand-600">
            <Spinner className="size-6" label="Loading models" />
          </div>
        ) : modelsError ? (
          <Alert>{modelsError}</Alert>
        ) : models && models.length === 0 ? (
          <p className="text-sm text-gray-600">{NO_MODELS_MESSAGE}</p>
        ) : models ? (
          <form onSubmit={handleSubmit} className="space-y-5" noValidate aria-describedby={someLocked ? hintId : undefined}>
            {error ? <Alert>{error}</Alert> : null}
            {success ? <Alert tone="success">{success}</Alert> : null}
            {someLocked ? (
              <p id={hintId} className="rounded-lg bg-brand-50 px-4 py-3 text-sm text-brand-900">
                More models are part of Pro.{' '}
                <Link to="/pricing" className="font-medium text-brand-700 hover:text-brand-800 hover:underline">
                  Upgrade to Pro
                </Link>
              </p>
            ) : null}
            <SelectField
              label="Model"
              name="model"
              value={form.modelId}
              options={modelOptions(models, chatbot.model)}
              onChange={(e) => setForm((current) => ({ ...current, modelId: e.target.value }))}
            />
            <SelectField
              label="Fallback"
              name="fallback-model"
              value={form.fallbackModelId === form.modelId ? '' : form.fallbackModelId}
              options={fallbackOptions(models, form.modelId)}
              onChange={(e) => setForm((current) => ({ ...current, fallbackModelId: e.target.value }))}
            />
            <p className="-mt-3 text-xs text-gray-500">
              The fallback is tried once when the model fails before answering. A typical answer reads 2,000 tokens (instructions, knowledge
              and the conversation) and writes 300.
            </p>
            <div className="flex justify-end border-t border-gray-100 pt-5">
              <Button type="submit" busy={loading} busyLabel="Saving...">
                Save Model
              </Button>
            </div>
          </form>
        ) : null}
      </CardBody>
    </Card>
  );
}
