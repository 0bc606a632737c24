import { ChatbotAvatar } from '../../../components/chatbots/chatbot-avatar';
import type { ReactNode } from 'react';
import type { PublicChatbot } from '../api/public-chat-api';
import type { ChatSource } from '../../../components/citations/chat-sources';
import { CitedAnswer } from '../../../components/citations/cited-answer';

/** The visitor's own message: right-aligned, in the accent colour (the owner's, when set), as typed. */
export function UserBubble({ content }: { content: string }) {
  return (
    <div className="flex justify-end pl-10 sm:pl-16">
      <div className="max-w-full rounded-2xl rounded-br-md bg-brand-600 px-4 py-2.5 text-[15px] leading-6 whitespace-pre-wrap break-words text-[var(--color-on-brand,#fff)] shadow-xs">
        <span className="sr-only">You: </span>
        {content}
      </div>
    </div>
  );
}

/** The chatbot's side: its avatar and a left-aligned bubble (an answer, or the typing dots). */
export function AssistantRow({ chatbot, children }: { chatbot: PublicChatbot; children: ReactNode }) {
  return (
    <div data-testid="assistant-message" className="flex items-start gap-2.5 pr-6 sm:pr-16">
      <ChatbotAvatar name={chatbot.name} src={chatbot.profilePicture} size="xs" className="mt-1.5" />
      <div className="min-w-0">{children}</div>
    </div>
  );
}

interface AssistantBubbleProps {
  name: string;
  content: string;
  /** The answer's citations: its [n] markers become badges (none while it streams). */
  sources?: ChatSource[];
  streaming?: boolean;
}

export function AssistantBubble({ name, content, sources = [], streaming = false }: AssistantBubbleProps) {
  return (
    <div
      aria-busy={streaming || undefined}
      className="rounded-2xl rounded-bl-md border border-gray-200 bg-white px-4 py-2.5 text-[15px] leading-6 break-words text-gray-800 shadow-xs"
    >
      <span className="sr-only">{name}: </span>
      <CitedAnswer content={content} sources={sources} />
    </div>
  );
}
