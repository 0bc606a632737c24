import { useCallback, useRef, type CSSProperties } from 'react';
import { Spinner } from '../../../components/ui/spinner';
import { useDocumentTitle } from '../../../lib/use-document-title';
import type { ChatReply, PublicChatbot } from '../api/public-chat-api';
import { accentVariables } from '../appearance';
import type { Visitor } from '../embed-messages';
import { useChatSession } from '../hooks/use-chat-session';
import { useEmbedHost } from '../hooks/use-embed-host';
import { useHandoff } from '../hooks/use-handoff';
import { usePublicChatbot } from '../hooks/use-public-chatbot';
import { LeadFormCard, LeadSentNote } from '../lead-form/lead-form-card';
import { useLeadForm } from '../lead-form/use-lead-form';
import { ChatComposer } from './chat-composer';
import { ChatErrorScreen } from './chat-error-screen';
import { ChatHeader } from './chat-header';
import { ChatMessages } from './chat-messages';
import { HandoffBanner, TalkToPersonButton, TimeoutEmailForm } from './handoff-lazy';
import { PoweredByParley } from './powered-by-parley';

function reloadPage() {
  window.location.reload();
}

interface PublicChatPageProps {
  uniqueId: string;
  /** The /embed/{uniqueId} page inside the widget: a close button, Esc closes, calls marked as embedded. */
  embedded?: boolean;
  /** What Try Again does: reload the page (replaceable in tests, where jsdom cannot reload). */
  reload?: () => void;
}

/**
 * The full-screen public chat for /chat/{uniqueId} and, inside the widget, /embed/{uniqueId}: no
 * site header or footer, no sign-in, in the owner's colour with the "Powered by Parley" badge
 * unless a pro owner hid it.
 */
export function PublicChatPage({ uniqueId, embedded = false, reload = reloadPage }: PublicChatPageProps) {
  const state = usePublicChatbot(uniqueId, embedded);
  const host = useEmbedHost(embedded, state.status !== 'loading');

  if (state.status === 'loading') {
    return (
      <div className="flex min-h-dvh items-center justify-center bg-gray-50 text-brand-600">
        <Spinner className="size-8" label="Loading chat" />
      </div>
    );
  }
  if (state.status === 'error') return <ChatErrorScreen message={state.error} onRetry={reload} onClose={host.close} />;
  return (
    <div className="contents" style={accentVariables(state.chatbot.appearance.primaryColor) as CSSProperties}>
      <ChatWindow
        uniqueId={uniqueId}
        chatbot={state.chatbot}
        reload={reload}
        embedded={embedded}
        visitor={host.visitor}
        onClose={host.close}
      />
    </div>
  );
}

interface ChatWindowProps {
  uniqueId: string;
  chatbot: PublicChatbot;
  reload: () => void;
  embedded: boolean;
  visitor: Visitor | null;
  onClose?: () => void;
}

/** A message id the server gave (a Postgres sequence), as the conversation stream starts after one. */
const SERVER_MESSAGE_ID = /^[0-9]+$/;

function ChatWindow({ uniqueId, chatbot, reload, embedded, visitor, onClose }: ChatWindowProps) {
  // The handoff hook hears of every reply; it needs the session's messages, so it comes second.
  const onReplyRef = useRef<(reply: ChatReply) => void>(undefined);
  const onReply = useCallback((reply: ChatReply) => onReplyRef.current?.(reply), []);
  const {
    sessionId,
    messages,
    started,
    streaming,
    status,
    pending,
    error,
    send,
    decide,
    rate,
    clear,
    addStreamed,
    unanswered,
    leadAsked,
    adoptSessionId,
  } = useChatSession(uniqueId, chatbot.welcomeMessage, { embedded, visitor, proofOfWork: chatbot.proofOfWork, onReply });
  const lastMessageId = messages.findLast((m) => m.messageId !== undefined && SERVER_MESSAGE_ID.test(m.messageId))?.messageId ?? null;
  const handoff = useHandoff({ uniqueId, sessionId, embedded, addStreamed, lastMessageId });
  onReplyRef.current = handoff.onReply;
  // A person may be asked for once the conversation exists (the server issued its session), while the bot has it.
  const canAsk = chatbot.handoff && started && !pending && !handoff.active;
  const asking = { onRequest: () => void handoff.request(), requesting: handoff.requesting, error: handoff.error };
  const last = messages.at(-1);
  const offered = canAsk && last?.role === 'assistant' && last.offerHandoff === true;
  const lead = useLeadForm({
    uniqueId,
    form: chatbot.leadForm,
    sessionId,
    embedded,
    visitor,
    onSessionId: adoptSessionId,
    visitorMessages: messages.filter((message) => message.role === 'user').length,
    lastUnanswered: unanswered,
    asked: leadAsked,
    pending,
  });
  const leadForm =
    lead.shown && chatbot.leadForm ? (
      <LeadFormCard form={chatbot.leadForm} visitor={visitor} onSubmit={lead.submit} onSkip={lead.skip} />
    ) : lead.justSent ? (
      <LeadSentNote />
    ) : null;
  const suggestions = started || pending || lead.blocking ? [] : chatbot.suggestedQuestions;

  useDocumentTitle(chatbot.name);

  if (error) return <ChatErrorScreen message={error} onRetry={reload} onClose={onClose} />;

  return (
    <div className="flex h-dvh flex-col bg-gray-50">
      <ChatHeader chatbot={chatbot} onClear={clear} canClear={!pending && started} onClose={onClose} />
      {handoff.active ? <HandoffBanner state={handoff.state} /> : null}
      <main className="flex min-h-0 flex-1 flex-col">
        <ChatMessages
          chatbot={chatbot}
          messages={messages}
          streaming={streaming}
          status={status}
          suggestions={suggestions}
          onPickSuggestion={(question) => void send(question)}
          onRate={rate}
          onDecide={pending ? undefined : decide}
          offer={offered ? asking : null}
          after={handoff.timedOut ? <TimeoutEmailForm uniqueId={uniqueId} sessionId={sessionId} embedded={embedded} /> : leadForm}
        />
      </main>
      <footer className="shrink-0 border-t border-gray-200 bg-white pb-[env(safe-area-inset-bottom)]">
        {canAsk && !offered ? <TalkToPersonButton {...asking} className="mx-auto w-full max-w-3xl px-4 pt-3 sm:px-6" /> : null}
        <ChatComposer onSend={send} pending={pending || lead.blocking} />
        {chatbot.appearance.hideBranding ? null : <PoweredByParley />}
      </footer>
    </div>
  );
}
