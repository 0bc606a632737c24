import { ChatIcon } from '../../../components/chatbots/chatbot-icons';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { Spinner } from '../../../components/ui/spinner';
import { formatDateTime } from '../../../lib/format';
import { useConversationExport } from '../hooks/use-conversation-export';
import { useConversations } from '../hooks/use-conversations';
import { visitorLabel } from '../visitor-label';
import { ExportConversationsButtons } from './export-conversations-buttons';
import { VerifiedVisitor } from './verified-visitor';

/** How History names the messaging channel a conversation came from (docs/product.md, Channels). */
const CHANNEL_LABELS: Record<string, string> = {
  telegram: 'Telegram',
  whatsapp: 'WhatsApp',
  messenger: 'Messenger',
  instagram: 'Instagram',
};

/** How much of a session id the list shows (docs/product.md, Conversation history). */
export const SESSION_ID_SHOWN = 8;

export function messageCountLabel(count: number): string {
  return `${count} ${count === 1 ? 'message' : 'messages'}`;
}

interface ConversationListProps {
  chatbotId: string;
  chatbotName: string;
  open: boolean;
  onSelect: (conversationId: string) => void;
}

export function ConversationList({ chatbotId, chatbotName, open, onSelect }: ConversationListProps) {
  const { conversations, loading, error } = useConversations(chatbotId, open);
  const exporter = useConversationExport(chatbotId, chatbotName);

  return (
    <Card>
      <CardHeader title="Conversation History" description="What visitors asked on the public chat page, most recent first." />
      <CardBody>
        {conversations.length > 0 ? (
          <div className="mb-4 flex flex-col gap-3 rounded-xl bg-gray-50 px-4 py-3 ring-1 ring-gray-200 ring-inset sm:flex-row sm:items-center sm:justify-between">
            <p className="text-sm text-gray-600">Export every conversation with its messages and ratings.</p>
            <ExportConversationsButtons downloading={exporter.downloading} onDownload={(format) => void exporter.download(format)} />
          </div>
        ) : null}
        {exporter.error ? <Alert className="mb-4">{exporter.error}</Alert> : null}
        {loading ? (
          <div className="flex justify-center py-10 text-brand-600">
            <Spinner className="size-6" label="Loading conversations" />
          </div>
        ) : error ? (
          <Alert>{error}</Alert>
        ) : conversations.length === 0 ? (
          <div className="flex flex-col items-center py-10 text-center">
            <span className="inline-flex size-11 items-center justify-center rounded-full bg-gray-100 text-gray-500">
              <ChatIcon className="size-5" />
            </span>
            <p className="mt-3 text-sm text-gray-600">No conversations found for this chatbot.</p>
          </div>
        ) : (
          <ul aria-label="Conversations" className="-mx-1 max-h-[500px] space-y-2 overflow-y-auto px-1 py-1">
            {conversations.map((conversation) => {
              const visitor = visitorLabel(conversation);
              return (
                <li key={conversation.id}>
                  <button
                    type="button"
                    onClick={() => onSelect(conversation.id)}
                    className="group w-full rounded-xl border border-gray-200 bg-white px-4 py-3 text-left transition-colors hover:border-brand-300 hover:bg-brand-50/40"
                  >
                    <span className="flex items-center justify-between gap-3">
                      <span className="min-w-0 text-sm font-medium text-gray-900">
                        Session ID: <span className="font-mono">{conversation.sessionId.slice(0, SESSION_ID_SHOWN)}</span>
                      </span>
                      <span className="flex shrink-0 items-center gap-1.5">
                        {conversation.channel && conversation.channel !== 'web' ? (
                          <Badge tone="brand">{CHANNEL_LABELS[conversation.channel] ?? conversation.channel}</Badge>
                        ) : null}
                        <Badge tone="neutral">{messageCountLabel(conversation.messageCount)}</Badge>
                      </span>
                    </span>
                    {visitor ? <span className="mt-0.5 block text-sm break-words text-gray-700">{visitor}</span> : null}
                    {conversation.verifiedUserId ? <VerifiedVisitor className="mt-1" conversation={conversation} /> : null}
                    <span className="mt-1 flex flex-wrap gap-x-4 gap-y-0.5 text-xs text-gray-500">
                      <span>{formatDateTime(conversation.updatedAt)}</span>
                      <span className="break-all">
                        {conversation.userIp || (conversation.channel === 'web' ? 'Unknown user' : 'Via a channel')}
                      </span>
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </CardBody>
    </Card>
  );
}
