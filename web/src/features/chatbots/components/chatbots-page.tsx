import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { PlusIcon } from '../../../components/chatbots/chatbot-icons';
import { ChatbotsEmptyState } from '../../../components/chatbots/chatbots-empty-state';
import { Alert } from '../../../components/ui/alert';
import { ButtonLink } from '../../../components/ui/button-link';
import { PageContainer } from '../../../components/ui/page-container';
import { Spinner } from '../../../components/ui/spinner';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { canCreateChatbot } from '../../../lib/chatbots/chatbot-rules';
import { useCan } from '../../../lib/workspace/use-can';
import { useSession } from '../../../lib/session/session-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { ChatbotCard } from './chatbot-card';
import { WorkspaceEyebrow } from '../../../components/workspace/workspace-eyebrow';

export const FREE_PLAN_NOTICE = 'Free plan: you can have one chatbot. Upgrade to Pro for unlimited chatbots.';

export function ChatbotsPage() {
  useDocumentTitle('My Chatbots');
  const { user } = useSession();
  const { chatbots, loaded, error, refresh } = useChatbots();
  const canWrite = useCan('chatbots:write');

  // Interaction counts change while visitors chat, so opening the page asks again (throttled).
  useEffect(() => {
    void refresh();
  }, [refresh]);

  if (!user) return null;
  const isEmpty = loaded && chatbots.length === 0;
  // The empty state carries its own "Create New Chatbot", so the header one only joins a non-empty list.
  const showCreate = canWrite && canCreateChatbot(user.subscription, chatbots.length) && chatbots.length > 0;
  const showFreeNotice = user.subscription !== 'pro' && chatbots.length > 0;

  return (
    <PageContainer className="py-8 sm:py-10">
      <div className="mb-8 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div className="min-w-0">
          <WorkspaceEyebrow />
          <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">My Chatbots</h1>
          <p className="mt-1 text-sm text-gray-600">Create, configure and share your chatbots.</p>
        </div>
        {showCreate ? (
          <ButtonLink to="/chatbots/create" className="self-start sm:self-auto">
            <PlusIcon />
            Create New Chatbot
          </ButtonLink>
        ) : null}
      </div>

      <div className="space-y-6">
        {showFreeNotice ? (
          <Alert tone="info" className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
            <span>{FREE_PLAN_NOTICE}</span>
            <Link to="/pricing" className="shrink-0 rounded-sm font-semibold text-brand-700 underline-offset-2 hover:underline">
              Upgrade to Pro
            </Link>
          </Alert>
        ) : null}

        {error ? <Alert>{error}</Alert> : null}

        {!loaded && !error ? (
          <div className="flex justify-center py-16 text-brand-600">
            <Spinner className="size-8" label="Loading chatbots" />
          </div>
        ) : null}

        {isEmpty ? <ChatbotsEmptyState /> : null}

        {chatbots.length > 0 ? (
          <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
            {chatbots.map((chatbot) => (
              <li key={chatbot.id} className="flex min-w-0 flex-col [&>article]:flex-1">
                <ChatbotCard chatbot={chatbot} />
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </PageContainer>
  );
}
