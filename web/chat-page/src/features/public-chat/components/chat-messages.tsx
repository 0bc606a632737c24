import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { ChatbotAvatar } from '../../../components/chatbots/chatbot-avatar';
import type { PublicChatbot } from '../api/public-chat-api';
import type { ChatMessage, ChatRating } from '../chat-storage';
import { AgentBubble, HandoffOffer, SystemNotice } from './handoff-lazy';
import { AssistantBubble, AssistantRow, UserBubble } from './message-bubble';
import { MessageFeedback } from './message-feedback';
import { MessageSources } from '../../../components/citations/message-sources';
import { SuggestedQuestions } from './suggested-questions';
import { TypingIndicator } from './typing-indicator';
import { ConfirmationCard } from './confirmation-card';

interface ChatMessagesProps {
  chatbot: PublicChatbot;
  messages: ChatMessage[];
  /** The answer so far while a reply is pending ("" before its first words); null otherwise. */
  streaming: string | null;
  /** While one of the chatbot's actions runs and no words have come yet: its status line. */
  status?: string | null;
  /** The chatbot's suggested questions, offered until the visitor writes; [] once they have. */
  suggestions: string[];
  onPickSuggestion: (question: string) => void;
  /** Rates a stored answer; resolves to whether the server kept it. */
  onRate: (messageId: string, rating: ChatRating) => Promise<boolean>;
  /** Confirms or cancels an action card; absent while a reply is pending. */
  onDecide?: (callId: string, decision: 'confirm' | 'cancel') => void;
  /** The bot's offer of a person under the last answer, when it made one and the visitor may ask now. */
  offer?: { onRequest: () => void; requesting: boolean; error: string | null } | null;
  /** Shown after the last message, inside the conversation (the lead form, or the email asked for when nobody was free). */
  after?: ReactNode;
}

/**
 * The scrolling conversation; it follows the newest message, including an answer as it streams.
 * The suggested questions sit under the welcome (or the empty state), just above the field.
 * Only a stored answer (one with an id) has thumbs: never the welcome or the answer still streaming.
 */
export function ChatMessages({
  chatbot,
  messages,
  streaming,
  status,
  suggestions,
  onPickSuggestion,
  onRate,
  onDecide,
  offer,
  after,
}: ChatMessagesProps) {
  const scroller = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [messages, streaming, after, offer]);

  const empty = messages.length === 0 && streaming === null;

  return (
    <div ref={scroller} className="min-h-0 flex-1 overflow-y-auto overscroll-contain">
      {empty ? (
        <div className="flex h-full flex-col items-center justify-center px-6 py-10 text-center">
          <ChatbotAvatar name={chatbot.name} src={chatbot.profilePicture} size="lg" />
          <p className="mt-5 text-xl font-semibold tracking-tight text-gray-900">Ask me anything!</p>
          <p className="mt-1.5 max-w-xs text-sm text-gray-500">Send a message below to start chatting with {chatbot.name}.</p>
          <SuggestedQuestions questions={suggestions} onPick={onPickSuggestion} className="mt-6 max-w-md justify-center" />
          {after ? <div className="mt-6 w-full max-w-md text-left [&>*]:ml-0">{after}</div> : null}
        </div>
      ) : (
        <div className="mx-auto w-full max-w-3xl px-4 py-6 sm:px-6">
          <div role="log" aria-label="Conversation" className="space-y-4">
            {messages.map((message, index) => {
              if (message.role === 'user') return <UserBubble key={index} content={message.content} />;
              if (message.role === 'agent')
                return <AgentBubble key={index} name={message.authorName ?? 'Agent'} content={message.content} />;
              if (message.role === 'system') return <SystemNotice key={index} content={message.content} />;
              const offered = offer && message.offerHandoff && index === messages.length - 1 ? <HandoffOffer {...offer} /> : null;
              const { messageId } = message;
              const feedback = messageId ? (
                <MessageFeedback rating={message.rating} onRate={(rating) => onRate(messageId, rating)} />
              ) : null;
              return (
                <AssistantRow key={index} chatbot={chatbot}>
                  <AssistantBubble name={chatbot.name} content={message.content} sources={message.sources} />
                  {message.confirmation && !message.confirmation.decided ? (
                    <ConfirmationCard onDecide={onDecide && ((decision) => onDecide(message.confirmation!.callId, decision))} />
                  ) : null}
                  {message.sources?.length ? (
                    <MessageSources sources={message.sources} actions={feedback} />
                  ) : (
                    feedback && <div className="mt-1">{feedback}</div>
                  )}
                  {offered}
                </AssistantRow>
              );
            })}
            {streaming !== null ? (
              <AssistantRow chatbot={chatbot}>
                {streaming ? (
                  <AssistantBubble name={chatbot.name} content={streaming} streaming />
                ) : status ? (
                  <p role="status" className="py-2 text-sm text-gray-600 italic">
                    {status}
                  </p>
                ) : (
                  <TypingIndicator name={chatbot.name} />
                )}
              </AssistantRow>
            ) : null}
            {after}
          </div>
          {/* Aligned with the bubbles: past the avatar (size-8) and its gap. */}
          <SuggestedQuestions questions={suggestions} onPick={onPickSuggestion} className="mt-4 pl-[2.625rem] sm:pr-16" />
        </div>
      )}
    </div>
  );
}
