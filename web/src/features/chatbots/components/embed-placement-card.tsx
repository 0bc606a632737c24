import { useId, useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { Switch } from '../../../components/ui/switch';
import { TextareaField } from '../../../components/ui/textarea-field';
import type { ChatbotEmbedFragment } from '../../../gql/graphql';
import { MAX_ALLOWED_DOMAINS, placementChange, placementFormOf, type PlacementForm } from '../embed-settings';
import { useUpdateChatbotEmbed } from '../hooks/use-update-chatbot-embed';

/**
 * Where the chat may run: the sites allowed to embed it (and to call its chat from their pages) and
 * whether the standalone public page answers. The service checks the host names.
 */
export function EmbedPlacementCard({ chatbot }: { chatbot: ChatbotEmbedFragment }) {
  const { saveEmbed, loading, error, success } = useUpdateChatbotEmbed(chatbot.id);
  const [form, setForm] = useState<PlacementForm>(() => placementFormOf(chatbot));
  const id = useId();
  const change = placementChange(chatbot, form);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!change) return;
    const saved = await saveEmbed(change);
    if (saved) setForm(placementFormOf(saved));
  }

  return (
    <Card>
      <CardHeader title="Where it runs" description="Keep other websites from putting your chatbot, and your credit, on their pages." />
      <CardBody>
        <form onSubmit={handleSubmit} className="space-y-5" noValidate>
          {error ? <Alert>{error}</Alert> : null}
          {success ? <Alert tone="success">{success}</Alert> : null}
          <TextareaField
            id={`${id}-domains`}
            label="Allowed domains"
            name="allowedDomains"
            rows={3}
            spellCheck={false}
            placeholder={'shop.example.com\nwww.example.com'}
            hint={`One host name per line, up to ${MAX_ALLOWED_DOMAINS}, without https:// (a pasted address keeps only its host). Empty: anywhere.`}
            value={form.allowedDomains}
            onChange={(e) => setForm((current) => ({ ...current, allowedDomains: e.target.value }))}
            className="[&_textarea]:font-mono"
          />
          <Switch
            label="Standalone public page"
            description="Your chatbot's own page on Parley, the link on the left. Off: it answers only inside the widget on your site."
            checked={form.standalonePage}
            onChange={(standalonePage) => setForm((current) => ({ ...current, standalonePage }))}
          />
          <div className="flex justify-end border-t border-gray-100 pt-5">
            <Button type="submit" disabled={!change} busy={loading} busyLabel="Saving...">
              Save Domains
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
