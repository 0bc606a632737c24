import { useCallback, useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { UpgradePrompt } from '../../../components/analytics/upgrade-prompt';
import { Alert } from '../../../components/ui/alert';
import { NotAllowedCard } from '../../../components/workspace/not-allowed-card';
import { Card } from '../../../components/ui/card';
import { PageContainer } from '../../../components/ui/page-container';
import { Spinner } from '../../../components/ui/spinner';
import { Switch } from '../../../components/ui/switch';
import { cn } from '../../../lib/cn';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { useSession } from '../../../lib/session/session-context';
import { hasPermission } from '../../../lib/workspace/roles';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { useHandoffNotifications } from '../hooks/use-handoff-notifications';
import { useInbox } from '../hooks/use-inbox';
import { useWorkspaceFromLink } from '../hooks/use-workspace-from-link';
import { ConversationPanel } from './conversation-panel';
import { InboxLists } from './inbox-lists';
import type { AnswerSlot } from '../../../components/conversations/answer-slot';
import type { ToolCallsSource } from '../../../components/conversations/tool-calls';

export const INBOX_UPGRADE_TITLE = 'Live inbox';
export const INBOX_UPGRADE_TEXT =
  'Let visitors talk to a person: your team sees who is waiting, takes over the conversation and hands it back to the bot. Available on the Pro plan.';
export const INBOX_NOT_ALLOWED_MESSAGE =
  'Your role in this workspace does not include conversations. Ask an owner or admin for the agent role.';
export const INBOX_FAILED = 'The inbox could not be loaded.';
export const NOTIFY_LABEL = 'Email me when a visitor is waiting';
export const INBOX_ACCESS_ENDED = 'You no longer have access to this workspace.';
export const INBOX_ACCESS_ENDED_HINT =
  'Your membership or role changed, or you were signed out elsewhere. Conversations are no longer shown here.';

function NotificationsSwitch({ show }: { show: boolean }) {
  const notifications = useHandoffNotifications(show);
  if (!show) return null;
  return (
    <div className="w-full max-w-sm sm:w-auto">
      <Switch
        label={NOTIFY_LABEL}
        checked={notifications.on}
        disabled={!notifications.loaded || notifications.saving}
        onChange={(on) => void notifications.change(on)}
      />
      {notifications.error ? (
        <Alert className="mt-2" tone="error">
          {notifications.error}
        </Alert>
      ) : null}
    </div>
  );
}

/** What the page shows once the server ended the live inbox because the member's access was taken away. */
function AccessEndedCard({ message }: { message: string }) {
  return (
    <Card className="px-6 py-10 text-center" role="alert">
      <h2 className="text-base font-semibold text-gray-900">{message || INBOX_ACCESS_ENDED}</h2>
      <p className="mt-1 text-sm text-gray-600">{INBOX_ACCESS_ENDED_HINT}</p>
    </Card>
  );
}

/**
 * /inbox and /inbox/{conversationId}: the workspace's visitors waiting for a person and the
 * conversations agents have open, live, beside the conversation chosen (docs/product.md, Inbox).
 */
export function InboxPage({ answerSlot, toolCalls }: { answerSlot?: AnswerSlot; toolCalls?: ToolCallsSource } = {}) {
  useWorkspaceFromLink();
  const { conversationId } = useParams();
  // "Grace Hopper — Inbox — Parley" once the conversation shown is loaded, so its browser tab tells it apart.
  const [shown, setShown] = useState<{ id: string; visitor: string } | null>(null);
  const onVisitor = useCallback(
    (visitor: string) => {
      if (conversationId) setShown({ id: conversationId, visitor });
    },
    [conversationId],
  );
  const session = useSession();
  const workspace = useWorkspace();
  const current = workspace.current;
  const canRead = hasPermission(current, 'conversations:read');
  const canWrite = hasPermission(current, 'conversations:write');
  const pro = session.user?.subscription === 'pro';
  const inbox = useInbox(Boolean(current) && canRead && pro, workspace.key);
  const { refresh } = workspace;
  // The workspaces and roles are read again, so the switcher and every page show what is left.
  useEffect(() => {
    if (inbox.ended) void refresh().catch(() => undefined);
  }, [inbox.ended, refresh]);
  const userId = session.user?.id;
  const visitor = shown && shown.id === conversationId && !inbox.ended ? shown.visitor : null;
  useDocumentTitle(visitor ? `${visitor} — Inbox` : 'Inbox');

  const header = (
    <div className="mb-6 flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-gray-900">Inbox</h1>
        <p className="mt-1 text-sm text-gray-600">Visitors who asked for a person, and the conversations your team has open.</p>
      </div>
      <NotificationsSwitch show={Boolean(current) && canWrite && pro && !inbox.ended} />
    </div>
  );

  if (!current) {
    return (
      <PageContainer className="py-8 sm:py-10">
        {workspace.error ? (
          <Alert>{workspace.error}</Alert>
        ) : (
          <div className="flex justify-center py-16 text-brand-600">
            <Spinner className="size-8" label="Loading workspace" />
          </div>
        )}
      </PageContainer>
    );
  }

  let body;
  if (!canRead) {
    body = <NotAllowedCard message={INBOX_NOT_ALLOWED_MESSAGE} />;
  } else if (!pro) {
    body = <UpgradePrompt title={INBOX_UPGRADE_TITLE} description={INBOX_UPGRADE_TEXT} />;
  } else if (inbox.ended) {
    // Access was taken away while the page was open: nothing of the workspace stays on screen.
    body = <AccessEndedCard message={inbox.ended} />;
  } else {
    const lists = inbox.data?.inbox;
    body = (
      <div className="grid grid-cols-[minmax(0,1fr)] gap-6 lg:grid-cols-[20rem_minmax(0,1fr)]">
        <Card className={cn('h-fit p-3', conversationId && 'hidden lg:block')}>
          {lists ? (
            <InboxLists
              waiting={lists.waiting}
              open={lists.open}
              selectedId={conversationId}
              userId={userId}
              showAllOpen={hasPermission(current, 'members:manage')}
            />
          ) : inbox.error ? (
            <Alert>{userFacingErrorMessage(inbox.error, INBOX_FAILED)}</Alert>
          ) : (
            <div className="flex justify-center py-10 text-brand-600">
              <Spinner className="size-6" label="Loading the inbox" />
            </div>
          )}
        </Card>
        {conversationId ? (
          <ConversationPanel
            key={conversationId}
            id={conversationId}
            userId={userId}
            canWrite={canWrite}
            onVisitor={onVisitor}
            answerSlot={answerSlot}
            toolCalls={toolCalls}
          />
        ) : (
          <Card className="hidden items-center justify-center px-6 py-16 text-center lg:flex">
            <p className="text-sm text-gray-600">Choose a conversation to read it and answer the visitor.</p>
          </Card>
        )}
      </div>
    );
  }

  return (
    <PageContainer className="py-8 sm:py-10">
      {header}
      {body}
    </PageContainer>
  );
}
