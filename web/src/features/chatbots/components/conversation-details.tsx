import { useEffect, useRef, type ReactNode } from 'react';
import { ThumbDownIcon, ThumbUpIcon } from '../../../components/analytics/analytics-icons';
import { readSources } from '../../../../chat-page/src/components/citations/chat-sources';
import { CitedAnswer } from '../../../../chat-page/src/components/citations/cited-answer';
import { MessageSources } from '../../../../chat-page/src/components/citations/message-sources';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody, CardHeader } from '../../../components/ui/card';
import { Spinner } from '../../../components/ui/spinner';
import type { ConversationQuery } from '../../../gql/graphql';
import { cn } from '../../../lib/cn';
import { formatDateTime } from '../../../lib/format';
import { AnsweredBy } from '../../../components/conversations/answered-by';
import { InternalNote } from '../../../components/conversations/internal-note';
import { useConversation } from '../hooks/use-conversation';
import { useConversationToolCalls } from '../hooks/use-conversation-tool-calls';
import { callsByAnswer, ToolCalls, type ToolCallEntry } from '../../../components/conversations/tool-calls';
import { useCan } from '../../../lib/workspace/use-can';
import { visitorLabel } from '../visitor-label';
import { VerifiedVisitor } from './verified-visitor';
import { AnswerActions } from './answer-actions';

type Message = ConversationQuery['conversation']['messages'][number];

function Detail({ label, children, className }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div className={cn('min-w-0', className)}>
      <dt className="text-xs font-medium text-gray-500">{label}</dt>
      <dd className="mt-0.5 text-sm break-words text-gray-900">{children}</dd>
    </div>
  );
}

/** `inline` when it sits in a row with the rating, which carries the spacing above. */
function MessageTime({ timestamp, inline = false }: { timestamp: string | null; inline?: boolean }) {
  return <p className={cn('text-[11px] text-gray-500', !inline && 'mt-1')}>{formatDateTime(timestamp, 'Unknown time')}</p>;
}

export const RATED_GOOD_LABEL = 'Rated good answer';
export const RATED_BAD_LABEL = 'Rated bad answer';

/** The visitor's thumbs on an answer, beside its time; nothing when it was not rated. */
function MessageRating({ rating }: { rating: string | null | undefined }) {
  if (rating !== 'up' && rating !== 'down') return null;
  const good = rating === 'up';
  return (
    <span
      role="img"
      aria-label={good ? RATED_GOOD_LABEL : RATED_BAD_LABEL}
      title={good ? RATED_GOOD_LABEL : RATED_BAD_LABEL}
      className={cn(
        'inline-flex size-5 items-center justify-center rounded-full ring-1 ring-inset',
        good ? 'bg-green-50 text-green-600 ring-green-200' : 'bg-red-50 text-red-600 ring-red-200',
      )}
    >
      {good ? <ThumbUpIcon className="size-3" /> : <ThumbDownIcon className="size-3" />}
    </span>
  );
}

/** How History names a member who answered the visitor from the inbox (their display name, marked as the team's). */
export const agentLabel = (authorName: string | null | undefined): string => (authorName ? `${authorName} (team)` : 'Team member');

/**
 * One message as the owner reviews it: visitor right, chatbot and the team's replies left, system
 * notes centred, and internal notes set apart as in the inbox.
 */
function MessageItem({
  message,
  chatbotId,
  question,
  calls = [],
}: {
  message: Message;
  chatbotId: string;
  question: string | null;
  calls?: readonly ToolCallEntry[];
}) {
  if (message.role === 'note') {
    return (
      <InternalNote
        authorName={message.authorName ?? null}
        content={message.content}
        when={formatDateTime(message.timestamp, 'Unknown time')}
      />
    );
  }
  if (message.role === 'agent') {
    // A person's words as typed (not Markdown), on the chatbot's side: the visitor read them there.
    return (
      <li className="flex flex-col items-start pr-8">
        <span className="mb-1 text-[11px] font-medium text-brand-700">{agentLabel(message.authorName)}</span>
        <div className="max-w-full rounded-2xl rounded-bl-md bg-brand-50 px-3.5 py-2 text-sm leading-6 break-words whitespace-pre-wrap text-gray-900 ring-1 ring-brand-200 ring-inset">
          {message.content}
        </div>
        <MessageTime timestamp={message.timestamp} />
      </li>
    );
  }
  if (message.role === 'system') {
    return (
      <li className="flex flex-col items-center">
        <div className="max-w-[90%] rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-center text-xs text-amber-900">
          <span className="font-semibold">System Message:</span> <span className="whitespace-pre-wrap break-words">{message.content}</span>
        </div>
        <MessageTime timestamp={message.timestamp} />
      </li>
    );
  }
  const fromUser = message.role === 'user';
  const sources = readSources(message.sources);
  return (
    <li className={cn('flex flex-col', fromUser ? 'items-end pl-8' : 'items-start pr-8')}>
      <span className="mb-1 text-[11px] font-medium text-gray-500">{fromUser ? 'Visitor' : 'Chatbot'}</span>
      <div
        className={cn(
          'max-w-full rounded-2xl px-3.5 py-2 text-sm leading-6 break-words',
          fromUser
            ? 'rounded-br-md bg-brand-600 text-white whitespace-pre-wrap'
            : 'rounded-bl-md border border-gray-200 bg-white text-gray-800',
        )}
      >
        {/* An answer as the visitor saw it: Markdown (its renderer loaded only when needed) with its [n] markers as badges. */}
        {fromUser ? message.content : <CitedAnswer content={message.content} sources={sources} />}
      </div>
      {fromUser ? (
        <MessageTime timestamp={message.timestamp} />
      ) : (
        <>
          <div className="mt-1 flex items-center gap-2">
            <MessageTime timestamp={message.timestamp} inline />
            <MessageRating rating={message.rating} />
          </div>
          <AnsweredBy model={message.model} fallback={message.fallback} />
          {calls.length > 0 ? <ToolCalls calls={calls} /> : null}
          {sources.length > 0 && <MessageSources sources={sources} />}
          {question ? (
            <AnswerActions
              chatbotId={chatbotId}
              question={question}
              answer={message.content}
              sources={sources.flatMap((s) => (s.entryId ? [{ entryId: s.entryId, title: s.title }] : []))}
            />
          ) : null}
        </>
      )}
    </li>
  );
}

/** The visitor's message an answer replied to: the nearest one before it. */
function askedBefore(messages: readonly Message[], index: number): string | null {
  for (let i = index - 1; i >= 0; i--) if (messages[i].role === 'user') return messages[i].content;
  return null;
}

interface ConversationDetailsProps {
  chatbotId: string;
  conversationId: string;
  onBack: () => void;
}

export function ConversationDetails({ chatbotId, conversationId, onBack }: ConversationDetailsProps) {
  const { conversation, loading, error } = useConversation(chatbotId, conversationId);
  const card = useRef<HTMLDivElement>(null);
  const visitor = conversation ? visitorLabel(conversation) : null;
  // The call log holds what visitors gave: read with the conversations' permission, as the Actions card's.
  const toolCalls = useConversationToolCalls(chatbotId, conversation?.sessionId ?? null, useCan('conversations:read'));
  const callsAt = conversation ? callsByAnswer(conversation.messages, toolCalls.calls) : new Map<number, ToolCallEntry[]>();

  // Picked from far down a long list (or on a phone), the details would start above the screen.
  useEffect(() => {
    card.current?.scrollIntoView?.({ block: 'nearest' });
  }, []);

  return (
    <Card ref={card}>
      <CardHeader
        title="Conversation Details"
        action={
          <Button variant="secondary" size="sm" onClick={onBack}>
            <span aria-hidden="true">←</span> Back
          </Button>
        }
      />
      <CardBody>
        {loading ? (
          <div className="flex justify-center py-10 text-brand-600">
            <Spinner className="size-6" label="Loading conversation" />
          </div>
        ) : error ? (
          <Alert>{error}</Alert>
        ) : conversation ? (
          <>
            <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-2">
              <Detail label="Session ID" className="sm:col-span-2">
                <span className="font-mono break-all">{conversation.sessionId}</span>
              </Detail>
              {visitor ? (
                <Detail label="Visitor" className="sm:col-span-2">
                  {visitor}
                </Detail>
              ) : null}
              {conversation.verifiedUserId ? (
                <Detail label="Identity" className="sm:col-span-2">
                  <VerifiedVisitor conversation={conversation} />
                </Detail>
              ) : null}
              <Detail label="Started">{formatDateTime(conversation.createdAt)}</Detail>
              <Detail label="Last Message">{formatDateTime(conversation.updatedAt)}</Detail>
              <Detail label="User Agent" className="sm:col-span-2">
                <span className="text-gray-700">{conversation.userAgent || 'Unknown'}</span>
              </Detail>
            </dl>
            <h3 className="mt-6 text-sm font-semibold text-gray-900">Messages</h3>
            {conversation.messages.length === 0 ? (
              <p className="mt-2 text-sm text-gray-500">No messages in this conversation.</p>
            ) : (
              <ol
                aria-label="Messages"
                tabIndex={0}
                className="mt-3 max-h-[500px] space-y-4 overflow-y-auto rounded-xl bg-gray-50 p-4 ring-1 ring-gray-200 ring-inset"
              >
                {conversation.messages.map((message, index) => (
                  <MessageItem
                    key={message.id ?? `at-${index}`}
                    message={message}
                    chatbotId={chatbotId}
                    question={message.role === 'assistant' ? askedBefore(conversation.messages, index) : null}
                    calls={callsAt.get(index)}
                  />
                ))}
              </ol>
            )}
            {toolCalls.error ? <p className="mt-2 text-xs text-gray-500">{toolCalls.error}</p> : null}
          </>
        ) : null}
      </CardBody>
    </Card>
  );
}
