import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { ChatbotAvatar } from '../../../../chat-page/src/components/chatbots/chatbot-avatar';
import { PlusIcon } from '../../../components/chatbots/chatbot-icons';
import { ChatbotsEmptyState } from '../../../components/chatbots/chatbots-empty-state';
import { DeleteChatbotButton } from '../../../components/chatbots/delete-chatbot-button';
import { EditChatbotLink } from '../../../components/chatbots/edit-chatbot-link';
import { UnansweredCountBadge } from '../../../components/chatbots/unanswered-count-badge';
import { Alert } from '../../../components/ui/alert';
import { ButtonLink } from '../../../components/ui/button-link';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { Spinner } from '../../../components/ui/spinner';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import type { ChatbotSummary } from '../../../lib/chatbots/chatbot-list';
import { canCreateChatbot, interactionsLabel } from '../../../lib/chatbots/chatbot-rules';
import { useCan } from '../../../lib/workspace/use-can';
import { formatDate, formatDollars } from '../../../lib/format';
import type { Plan } from '../../../lib/session/session-user';

/**
 * One chatbot on the dashboard. `cost` is its spend this month; null while the month's usage is
 * loading or could not be loaded (a chatbot without usage this month costs "0").
 */
function ChatbotTile({ chatbot, cost }: { chatbot: ChatbotSummary; cost: string | null }) {
  return (
    <li className="flex min-w-0 flex-col rounded-xl border border-gray-200 p-4">
      <div className="flex items-start gap-3">
        <ChatbotAvatar name={chatbot.name} src={chatbot.profilePicture} size="sm" />
        <div className="min-w-0 flex-1">
          <h3 className="truncate text-sm font-semibold text-gray-900">
            <Link to={`/chatbots/${chatbot.id}`} className="rounded-sm hover:text-brand-700">
              {chatbot.name}
            </Link>
          </h3>
          <p className="mt-0.5 text-xs text-gray-500">Created on {formatDate(chatbot.createdAt)}</p>
          <UnansweredCountBadge count={chatbot.openUnansweredQuestions} className="mt-1.5" />
        </div>
        <div className="-mt-1 -mr-1 flex shrink-0 items-center">
          <EditChatbotLink id={chatbot.id} name={chatbot.name} />
          <DeleteChatbotButton id={chatbot.id} name={chatbot.name} />
        </div>
      </div>
      <dl className="mt-4 grid grid-cols-2 gap-3 border-t border-gray-100 pt-3 text-sm">
        <div>
          <dt className="text-xs text-gray-500">Usage</dt>
          <dd className="mt-0.5 font-medium text-gray-900">{interactionsLabel(chatbot.interactions)}</dd>
          {chatbot.lastInteraction ? <dd className="text-xs text-gray-500">Last active {formatDate(chatbot.lastInteraction)}</dd> : null}
        </div>
        <div className="text-right">
          <dt className="text-xs text-gray-500">Cost this month</dt>
          {cost === null ? (
            <dd className="mt-0.5 font-medium text-gray-500 tabular-nums" title="Not available right now">
              —
            </dd>
          ) : (
            <dd className="mt-0.5 font-medium text-gray-900 tabular-nums">{formatDollars(cost, 4)}</dd>
          )}
        </div>
      </dl>
    </li>
  );
}

interface MyChatbotsCardProps {
  plan: Plan;
  /** Each chatbot's cost this month by chatbot id; null until the month's usage is known. */
  costs: ReadonlyMap<string, string> | null;
}

/** The dashboard's "My Chatbots" section, read from the shared chatbot list. */
export function MyChatbotsCard({ plan, costs }: MyChatbotsCardProps) {
  const { chatbots, loaded, error, refresh } = useChatbots();
  const canWrite = useCan('chatbots:write');

  useEffect(() => {
    void refresh();
  }, [refresh]);

  // The empty state has its own "Create New Chatbot"; free owners with a chatbot are not offered another.
  const showCreate = canWrite && chatbots.length > 0 && canCreateChatbot(plan, chatbots.length);

  return (
    <Card className="lg:col-span-2">
      <CardHeader
        title="My Chatbots"
        action={
          <div className="flex items-center gap-2">
            {chatbots.length > 0 ? (
              <ButtonLink to="/chatbots" variant="ghost" size="sm">
                View all
              </ButtonLink>
            ) : null}
            {showCreate ? (
              <ButtonLink to="/chatbots/create" size="sm">
                <PlusIcon />
                Create New
              </ButtonLink>
            ) : null}
          </div>
        }
      />
      <CardBody>
        {error ? <Alert className="mb-4">{error}</Alert> : null}
        {!loaded && !error ? (
          <div className="flex justify-center py-10 text-brand-600">
            <Spinner className="size-6" label="Loading chatbots" />
          </div>
        ) : null}
        {loaded && chatbots.length === 0 ? <ChatbotsEmptyState /> : null}
        {chatbots.length > 0 ? (
          <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {chatbots.map((chatbot) => (
              <ChatbotTile key={chatbot.id} chatbot={chatbot} cost={costs ? (costs.get(chatbot.id) ?? '0') : null} />
            ))}
          </ul>
        ) : null}
      </CardBody>
    </Card>
  );
}
