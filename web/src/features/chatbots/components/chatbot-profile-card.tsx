import { useEffect, useState, type ChangeEvent, type ReactNode } from 'react';
import { ChatbotAvatar } from '../../../../chat-page/src/components/chatbots/chatbot-avatar';
import { ExternalLinkIcon } from '../../../components/chatbots/chatbot-icons';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { buttonClasses } from '../../../components/ui/button-styles';
import { Card, CardBody } from '../../../components/ui/card';
import type { ChatbotSummary } from '../../../lib/chatbots/chatbot-list';
import { formatDate, formatDollars } from '../../../lib/format';
import { useChatbotMonthlyCost } from '../hooks/use-chatbot-monthly-cost';
import { PICTURE_ACCEPT, useUploadProfilePicture } from '../hooks/use-upload-profile-picture';

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-start justify-between gap-4 py-2.5">
      <dt className="shrink-0 text-sm text-gray-500">{label}</dt>
      <dd className="min-w-0 text-right text-sm font-medium text-gray-900">{children}</dd>
    </div>
  );
}

/** This calendar month's cost to 5 decimals; "—" while unknown. */
function MonthlyCost({ chatbotId }: { chatbotId: string }) {
  const { cost, loading } = useChatbotMonthlyCost(chatbotId);
  return (
    <>
      <span className={cost === null ? 'text-gray-500 tabular-nums' : 'tabular-nums'} aria-busy={loading || undefined}>
        {cost === null ? '—' : formatDollars(cost, 5)}
      </span>
      <span className="block text-xs font-normal text-gray-500">This month</span>
    </>
  );
}

/** The object URL of a picked file, revoked when the file changes or the card goes away. */
function usePreviewUrl(file: File | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file) {
      setUrl(null);
      return;
    }
    const objectUrl = URL.createObjectURL(file);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [file]);
  return url;
}

/** The detail page's left card: picture (picked, previewed, then saved), status, dates, cost, chat link. */
export function ChatbotProfileCard({ chatbot, readOnly = false }: { chatbot: ChatbotSummary; readOnly?: boolean }) {
  const { uploadPicture, loading, error, success } = useUploadProfilePicture(chatbot.id);
  const [picked, setPicked] = useState<File | null>(null);
  const previewUrl = usePreviewUrl(picked);

  function handlePick(event: ChangeEvent<HTMLInputElement>) {
    setPicked(event.target.files?.[0] ?? null);
    // Picking the same file again after a failed save must fire a change event again.
    event.target.value = '';
  }

  async function handleSave() {
    if (picked && (await uploadPicture(picked))) setPicked(null);
  }

  return (
    <Card>
      <CardBody className="flex flex-col items-center p-6 text-center">
        <ChatbotAvatar
          name={chatbot.name}
          src={previewUrl ?? chatbot.profilePicture}
          size="lg"
          alt={previewUrl ? 'New profile picture preview' : `${chatbot.name} profile picture`}
        />
        {readOnly ? null : (
          <>
            <div className="mt-4 flex flex-wrap justify-center gap-2">
              <label
                className={buttonClasses(
                  'secondary',
                  'sm',
                  'cursor-pointer has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-500',
                )}
              >
                {picked ? 'Choose Another' : 'Choose Picture'}
                <input type="file" accept={PICTURE_ACCEPT} className="sr-only" onChange={handlePick} />
              </label>
              <Button size="sm" onClick={handleSave} disabled={!picked} busy={loading} busyLabel="Saving...">
                Save Picture
              </Button>
            </div>
            <p className="mt-2 text-xs text-gray-500">{picked ? `Selected: ${picked.name}` : 'JPEG, PNG or GIF, up to 2 MB.'}</p>
            {error ? <Alert className="mt-3 w-full text-left">{error}</Alert> : null}
            {success ? (
              <Alert tone="success" className="mt-3 w-full text-left">
                {success}
              </Alert>
            ) : null}
          </>
        )}

        <h2 className="mt-5 max-w-full text-lg font-semibold break-words text-gray-900">{chatbot.name}</h2>

        <dl className="mt-4 w-full divide-y divide-gray-100 border-t border-gray-100 text-left">
          <Row label="Status">
            <Badge tone={chatbot.isActive ? 'success' : 'neutral'}>{chatbot.isActive ? 'Active' : 'Inactive'}</Badge>
          </Row>
          <Row label="Created">{formatDate(chatbot.createdAt)}</Row>
          <Row label="Last Updated">{formatDate(chatbot.updatedAt)}</Row>
          <Row label="Total Cost">
            <MonthlyCost chatbotId={chatbot.id} />
          </Row>
        </dl>

        <a
          href={`/chat/${chatbot.uniqueId}`}
          target="_blank"
          rel="noopener noreferrer"
          className={buttonClasses('primary', 'md', 'mt-5 w-full')}
        >
          Open Chat
          <ExternalLinkIcon />
          <span className="sr-only">(opens in a new tab)</span>
        </a>
      </CardBody>
    </Card>
  );
}
