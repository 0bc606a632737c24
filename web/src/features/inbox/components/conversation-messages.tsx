import { readSources } from '../../../../chat-page/src/components/citations/chat-sources';
import { CitedAnswer } from '../../../../chat-page/src/components/citations/cited-answer';
import { MessageSources } from '../../../../chat-page/src/components/citations/message-sources';
import type { InboxMessageFieldsFragment } from '../../../gql/graphql';
import { cn } from '../../../lib/cn';
import { formatDateTime } from '../../../lib/format';
import { AnsweredBy } from '../../../components/conversations/answered-by';
import { InternalNote } from '../../../components/conversations/internal-note';
import type { AnswerSlot } from '../../../components/conversations/answer-slot';
import { ToolCalls, type ToolCallEntry } from '../../../components/conversations/tool-calls';

const WHO: Record<string, string> = { user: 'Visitor', assistant: 'Bot', system: 'Parley' };

/**
 * The conversation as it happened: the visitor's messages on the left, the bot's and the agents'
 * replies on the right, the product's own lines centred, and internal notes set apart (amber, dashed,
 * marked "Internal note") so nobody mistakes them for what the visitor saw. The bot's answers show
 * their citations as the visitor saw them: numbered badges and the "Sources (n)" list under the bubble,
 * and the calls the bot made for them (as in History).
 */
export function ConversationMessages({
  messages,
  chatbotId,
  answerSlot,
  callsAt,
}: {
  messages: InboxMessageFieldsFragment[];
  chatbotId?: string;
  /** The calls the bot made, under the answer each belongs to (keyed by message index); none for a member who may not read them. */
  callsAt?: ReadonlyMap<number, readonly ToolCallEntry[]>;
  /** Shown under each answer to a visitor's question ("Add to tests" for a member who may change the chatbot). */
  answerSlot?: AnswerSlot;
}) {
  if (!messages.length) return <p className="py-8 text-center text-sm text-gray-500">No messages yet.</p>;
  return (
    <ol aria-label="Messages" className="space-y-3">
      {messages.map((m, i) => {
        const when = m.timestamp ? formatDateTime(m.timestamp) : null;
        if (m.role === 'system') {
          return (
            <li key={m.id} className="mx-auto max-w-md text-center text-xs text-gray-600">
              {m.content}
            </li>
          );
        }
        if (m.role === 'note') return <InternalNote key={m.id} authorName={m.authorName ?? null} content={m.content} when={when} />;
        const visitor = m.role === 'user';
        const agent = m.role === 'agent';
        const sources = m.role === 'assistant' ? readSources(m.sources) : [];
        return (
          <li key={m.id} className={cn('flex flex-col', visitor ? 'items-start' : 'items-end')}>
            <div
              className={cn(
                'max-w-[85%] rounded-2xl px-4 py-2.5 text-sm sm:max-w-[75%]',
                visitor && 'rounded-bl-md bg-gray-100 text-gray-900',
                m.role === 'assistant' && 'rounded-br-md bg-brand-50 text-gray-900 ring-1 ring-brand-100',
                agent && 'rounded-br-md bg-brand-700 text-white',
              )}
            >
              <p className={cn('text-xs font-semibold', agent ? 'text-brand-50' : 'text-gray-600')}>
                {agent ? (m.authorName ?? 'Agent') : (WHO[m.role] ?? m.role)}
                {when ? <span className="font-normal"> · {when}</span> : null}
              </p>
              {/* The bot's answers as the visitor saw them (Markdown, [n] as badges); people's words as typed. */}
              {m.role === 'assistant' ? (
                <div className="mt-0.5 break-words">
                  <CitedAnswer content={m.content} sources={sources} />
                </div>
              ) : (
                <p className="mt-0.5 break-words whitespace-pre-wrap">{m.content}</p>
              )}
            </div>
            {m.role === 'assistant' ? <AnsweredBy model={m.model} fallback={m.fallback} /> : null}
            {callsAt?.get(i)?.length ? <ToolCalls calls={callsAt.get(i) ?? []} className="sm:max-w-[75%]" /> : null}
            {sources.length > 0 ? (
              <div className="max-w-[85%] sm:max-w-[75%]">
                <MessageSources sources={sources} />
              </div>
            ) : null}
            {answerSlot && chatbotId && m.role === 'assistant' && messages[i - 1]?.role === 'user' ? (
              <div className="mt-1 flex flex-wrap items-center justify-end gap-2">
                {answerSlot({
                  chatbotId,
                  question: messages[i - 1].content,
                  answer: m.content,
                  sources: sources.flatMap((s) => (s.entryId ? [{ entryId: s.entryId, title: s.title }] : [])),
                })}
              </div>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}
