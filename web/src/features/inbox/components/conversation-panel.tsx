import { useEffect, useRef } from 'react';
import { Link } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { ChannelBadge, channelLabel } from '../../../components/channel-badge';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card } from '../../../components/ui/card';
import { Spinner } from '../../../components/ui/spinner';
import { userFacingErrorMessage } from '../../../lib/graphql-errors';
import { useConversationActions } from '../hooks/use-conversation-actions';
import { useInboxConversation } from '../hooks/use-inbox-conversation';
import { visitorLabel } from '../inbox-lists';
import { ConversationMessages } from './conversation-messages';
import { MessageForm } from './message-form';
import { useCan } from '../../../lib/workspace/use-can';
import type { AnswerSlot } from '../../../components/conversations/answer-slot';
import { callsByAnswer, type ToolCallsSource } from '../../../components/conversations/tool-calls';

export const SUMMARY_COST_HINT = 'A summary costs like an answer: one model call, billed to the workspace’s credit.';
export const CONVERSATION_FAILED = 'The conversation could not be loaded.';

const noToolCalls: ToolCallsSource = () => ({ calls: [], error: null });

const STATUS_LABEL = { BOT: 'Bot', WAITING: 'Waiting', HUMAN: 'Open', CLOSED: 'Closed' } as const;

/** Below the two-column layout the lists are hidden while a conversation shows: the way back comes first. */
function BackToList() {
  return (
    <p className="mb-3 text-sm lg:hidden">
      <Link
        to="/inbox"
        className="inline-flex items-center gap-1 rounded-md py-1 font-medium text-brand-700 hover:text-brand-800 focus-visible:outline-2 focus-visible:outline-brand-500"
      >
        ← All conversations
      </Link>
    </p>
  );
}

/**
 * One conversation of the inbox: who and where it stands, the agent's actions, its lead, history and
 * forms. `onVisitor` is told who the visitor is once the conversation is loaded (the page's title names them).
 */
export function ConversationPanel({
  id,
  userId,
  canWrite,
  onVisitor,
  answerSlot,
  toolCalls: useToolCalls = noToolCalls,
}: {
  id: string;
  userId: string | undefined;
  canWrite: boolean;
  onVisitor?: (label: string) => void;
  answerSlot?: AnswerSlot;
  /** Where the calls the bot made are read from (the app's routes give the chatbots feature's); none without. */
  toolCalls?: ToolCallsSource;
}) {
  const { data, error, loading } = useInboxConversation(id, true);
  const writesTests = useCan('chatbots:write');
  const actions = useConversationActions(id);
  const conversation = data?.inboxConversation;
  // The call log holds what visitors gave: read with the conversations' permission, as in History.
  const calls = useToolCalls(conversation?.item.chatbotId ?? '', conversation?.sessionId ?? null, useCan('conversations:read'));
  const scroller = useRef<HTMLDivElement>(null);
  const messageCount = conversation?.messages.length ?? 0;
  // The newest message in view, as in a chat: on opening and whenever one arrives.
  useEffect(() => {
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messageCount]);
  const label = conversation ? visitorLabel(conversation.item) : null;
  useEffect(() => {
    if (label) onVisitor?.(label);
  }, [label, onVisitor]);

  if (!conversation) {
    return (
      <div className="min-w-0">
        <BackToList />
        <Card className="px-6 py-12 text-center">
          {error ? (
            <Alert>{userFacingErrorMessage(error, CONVERSATION_FAILED)}</Alert>
          ) : loading ? (
            <div className="flex justify-center text-brand-600">
              <Spinner className="size-8" label="Loading the conversation" />
            </div>
          ) : null}
        </Card>
      </div>
    );
  }

  const { item, lead, messages } = conversation;
  const live = item.status === 'WAITING' || item.status === 'HUMAN';
  const mine = item.status === 'HUMAN' && item.assigneeId === userId;
  const summary = actions.summary ?? conversation.summary;

  return (
    <div className="min-w-0">
      <BackToList />
      <Card aria-label={`Conversation with ${visitorLabel(item)}`} role="region" className="flex min-w-0 flex-col">
        <div className="border-b border-gray-100 px-4 py-4 sm:px-6">
          <div className="flex flex-wrap items-start justify-between gap-3">
            <div className="min-w-0">
              <h2 className="truncate text-base font-semibold text-gray-900">{visitorLabel(item)}</h2>
              <p className="mt-0.5 flex flex-wrap items-center gap-2 text-sm text-gray-600">
                <Badge tone={item.status === 'WAITING' ? 'warning' : item.status === 'HUMAN' ? 'brand' : 'neutral'}>
                  {STATUS_LABEL[item.status]}
                </Badge>
                <ChannelBadge channel={item.channel} />
                {item.status === 'HUMAN' ? (
                  <span>{mine ? 'You are answering' : `${item.agentName ?? 'An agent'} is answering`}</span>
                ) : null}
                {item.visitorEmail ? <span className="truncate">{item.visitorEmail}</span> : null}
              </p>
            </div>
            {canWrite ? (
              <div className="flex flex-wrap gap-2">
                {item.status === 'WAITING' || (item.status === 'HUMAN' && !mine) ? (
                  <Button size="sm" onClick={() => void actions.claim()} busy={actions.busy === 'claim'}>
                    Claim
                  </Button>
                ) : null}
                <Button size="sm" variant="secondary" onClick={() => void actions.summarize()} busy={actions.busy === 'summarize'}>
                  Summarize
                </Button>
                {live ? (
                  <>
                    <Button size="sm" variant="secondary" onClick={() => void actions.handBack()} busy={actions.busy === 'handBack'}>
                      Hand back to bot
                    </Button>
                    <Button size="sm" variant="secondary" onClick={() => void actions.close()} busy={actions.busy === 'close'}>
                      Close conversation
                    </Button>
                  </>
                ) : null}
              </div>
            ) : null}
          </div>
          {canWrite ? <p className="mt-2 text-xs text-gray-500">{SUMMARY_COST_HINT}</p> : null}
          {actions.error ? (
            <Alert className="mt-3" tone="error">
              {actions.error}
            </Alert>
          ) : null}
        </div>

        {summary || lead ? (
          <div className="grid gap-3 border-b border-gray-100 px-4 py-4 sm:grid-cols-2 sm:px-6">
            {summary ? (
              <section aria-label="Summary" className="rounded-xl bg-gray-50 px-4 py-3 sm:col-span-2">
                <h3 className="text-xs font-semibold tracking-wide text-gray-600 uppercase">Summary</h3>
                <p className="mt-1 text-sm whitespace-pre-wrap text-gray-900">{summary}</p>
              </section>
            ) : null}
            {lead ? (
              <section aria-label="Lead" className="rounded-xl bg-gray-50 px-4 py-3 sm:col-span-2">
                <h3 className="text-xs font-semibold tracking-wide text-gray-600 uppercase">Lead</h3>
                <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm">
                  {lead.name ? (
                    <>
                      <dt className="text-gray-600">Name</dt>
                      <dd className="text-gray-900">{lead.name}</dd>
                    </>
                  ) : null}
                  {lead.email ? (
                    <>
                      <dt className="text-gray-600">Email</dt>
                      <dd className="break-all text-gray-900">{lead.email}</dd>
                    </>
                  ) : null}
                  {lead.phone ? (
                    <>
                      <dt className="text-gray-600">Phone</dt>
                      <dd className="text-gray-900">{lead.phone}</dd>
                    </>
                  ) : null}
                  {lead.channelContact ? (
                    <>
                      <dt className="text-gray-600">{channelLabel(lead.channel)}</dt>
                      <dd className="break-all text-gray-900">{lead.channelContact}</dd>
                    </>
                  ) : null}
                </dl>
              </section>
            ) : null}
          </div>
        ) : null}

        <div ref={scroller} className="max-h-[32rem] min-h-48 overflow-y-auto px-4 py-4 sm:px-6">
          <ConversationMessages
            messages={messages}
            chatbotId={conversation?.item.chatbotId}
            answerSlot={writesTests ? answerSlot : undefined}
            callsAt={callsByAnswer(messages, calls.calls)}
          />
          {calls.error ? <p className="mt-2 text-xs text-gray-500">{calls.error}</p> : null}
        </div>

        {canWrite ? (
          <div className="grid gap-4 border-t border-gray-100 px-4 py-4 sm:px-6 lg:grid-cols-2">
            <MessageForm
              label="Reply to the visitor"
              button="Send reply"
              hint={live ? (item.status === 'WAITING' ? 'Replying claims the conversation.' : undefined) : 'The bot has this conversation.'}
              disabled={!live}
              busy={actions.busy === 'reply'}
              onSend={actions.reply}
            />
            <MessageForm
              label="Internal note"
              button="Add note"
              hint="Only your team sees notes."
              tone="secondary"
              busy={actions.busy === 'note'}
              onSend={actions.addNote}
            />
          </div>
        ) : null}
      </Card>
    </div>
  );
}
