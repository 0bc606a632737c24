import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { SelectField } from '../../../components/ui/select-field';
import { Switch } from '../../../components/ui/switch';
import { TextField } from '../../../components/ui/text-field';
import type { ChatbotSummary } from '../../../lib/chatbots/chatbot-list';
import { useUpdateChatbot } from '../hooks/use-update-chatbot';
import { isLanguage, LANGUAGE_OPTIONS } from '../languages';

/** Name, primary language and Active switch; the form starts from the saved values. */
export function BasicSettingsForm({ chatbot }: { chatbot: ChatbotSummary }) {
  const { updateChatbot, loading, error, success } = useUpdateChatbot(chatbot.id);
  const [name, setName] = useState(chatbot.name);
  const [language, setLanguage] = useState(chatbot.language);
  const [isActive, setIsActive] = useState(chatbot.isActive);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await updateChatbot({ name, language, isActive });
  }

  return (
    <Card>
      <CardHeader title="Basic Settings" description="How your chatbot is named and which language it answers in." />
      <CardBody>
        <form onSubmit={handleSubmit} className="space-y-5" noValidate>
          {error ? <Alert>{error}</Alert> : null}
          {success ? <Alert tone="success">{success}</Alert> : null}
          <TextField label="Chatbot Name" name="name" autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
          <SelectField
            label="Primary Language"
            name="language"
            options={LANGUAGE_OPTIONS}
            value={language}
            onChange={(e) => {
              if (isLanguage(e.target.value)) setLanguage(e.target.value);
            }}
          />
          <Switch
            label="Active"
            description="Visitors can chat with an active chatbot through its public link."
            checked={isActive}
            onChange={setIsActive}
          />
          <div className="flex justify-end border-t border-gray-100 pt-5">
            <Button type="submit" busy={loading} busyLabel="Saving...">
              Save Changes
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
