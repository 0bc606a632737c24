import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { Switch } from '../../../components/ui/switch';
import { TextareaField } from '../../../components/ui/textarea-field';
import type { ChatbotPrivacyFragment } from '../../../gql/graphql';
import { useUpdateChatbotPrivacy } from '../hooks/use-update-chatbot-privacy';

export const MAX_PATTERNS = 10;
export const TOO_MANY_PATTERNS = `At most ${MAX_PATTERNS} patterns, one a line.`;

interface PrivacyForm {
  redactPersonalData: boolean;
  keepOriginal: boolean;
  /** One pattern a line, as typed. */
  patterns: string;
}

const formOf = (privacy: ChatbotPrivacyFragment['privacy']): PrivacyForm => ({
  redactPersonalData: privacy.redactPersonalData,
  keepOriginal: privacy.keepOriginal,
  patterns: privacy.patterns.join('\n'),
});

/** The owner's lines as the list of patterns the server checks: blank lines dropped. */
export const patternsOf = (typed: string) =>
  typed
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/**
 * The Privacy card: whether emails, phone numbers, card numbers, IBANs and the owner's own patterns
 * are replaced by placeholders before the model reads the visitor's words, and whether the stored
 * conversation keeps the words as typed. The server checks every pattern (its message is shown).
 */
export function PrivacySettingsCard({ chatbot }: { chatbot: ChatbotPrivacyFragment }) {
  const { save, fail, loading, error, success } = useUpdateChatbotPrivacy(chatbot.id);
  const [form, setForm] = useState<PrivacyForm>(() => formOf(chatbot.privacy));

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const patterns = patternsOf(form.patterns);
    if (patterns.length > MAX_PATTERNS) return fail(TOO_MANY_PATTERNS);
    const saved = await save({ privacy: { redactPersonalData: form.redactPersonalData, keepOriginal: form.keepOriginal, patterns } });
    if (saved) setForm(formOf(saved.privacy));
  }

  return (
    <Card>
      <CardHeader
        title="Privacy"
        description="Keep visitors' personal data from the AI model. The visitor still reads the answer with their details in it."
      />
      <CardBody>
        <form onSubmit={handleSubmit} className="space-y-5" noValidate>
          {error ? <Alert>{error}</Alert> : null}
          {success ? <Alert tone="success">{success}</Alert> : null}
          <Switch
            label="Hide personal data from the model"
            description="Emails, phone numbers, card numbers and IBANs become placeholders such as [EMAIL_1] before the model reads them."
            checked={form.redactPersonalData}
            onChange={(redactPersonalData) => setForm((current) => ({ ...current, redactPersonalData }))}
          />
          <Switch
            label="Keep the original words in conversations"
            description="Off: conversations, analytics and exports keep the placeholders, as the model read them."
            checked={form.keepOriginal}
            disabled={!form.redactPersonalData}
            onChange={(keepOriginal) => setForm((current) => ({ ...current, keepOriginal }))}
          />
          <TextareaField
            label="Your own patterns"
            name="privacy-patterns"
            rows={3}
            disabled={!form.redactPersonalData}
            placeholder={'CUST-\\d{6}'}
            hint="Regular expressions, one a line (at most 10, each at most 200 characters), such as customer numbers. Their matches become [CUSTOM_1]."
            value={form.patterns}
            onChange={(e) => setForm((current) => ({ ...current, patterns: e.target.value }))}
          />
          <div className="flex justify-end border-t border-gray-100 pt-5">
            <Button type="submit" busy={loading} busyLabel="Saving...">
              Save Privacy
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
