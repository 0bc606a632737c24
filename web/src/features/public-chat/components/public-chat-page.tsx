import { useEffect } from 'react';
import { Spinner } from '../../../components/ui/spinner';
import type { PublicChatbot } from '../api/public-chat-api';
import { useChatSession } from '../hooks/use-chat-session';
import { usePublicChatbot } from '../hooks/use-public-chatbot';
import { ChatComposer } from './chat-composer';
import { ChatErrorScreen } from './chat-error-screen';
import { ChatHeader } from './chat-header';
import { ChatMessages } from './chat-messages';

function reloadPage() {
  window.location.reload();
}

interface PublicChatPageProps {
  uniqueId: string;
  /** What Try Again does: reload the page (replaceable in tests, where jsdom cannot reload). */
  reload?: () => void;
}

/** The full-screen public chat for /chat/{uniqueId}: no site header or footer, no sign-in. */
export function PublicChatPage({ uniqueId, reload = reloadPage }: PublicChatPageProps) {
  const state = usePublicChatbot(uniqueId);

  if (state.status === 'loading') {
    return (
      <div className="flex min-h-dvh items-center justify-center bg-gray-50 text-brand-600">
        <Spinner className="size-8" label="Loading chat" />
      </div>
    );
  }
  if (state.status === 'error') return <ChatErrorScreen message={state.error} onRetry={reload} />;
  return <ChatWindow uniqueId={uniqueId} chatbot={state.chatbot} reload={reload} />;
}

function ChatWindow({ uniqueId, chatbot, reload }: { uniqueId: string; chatbot: PublicChatbot; reload: () => void }) {
  const { messages, started, streaming, pending, error, send, rate, clear } = useChatSession(uniqueId, chatbot.welcomeMessage);
  const suggestions = started || pending ? [] : chatbot.suggestedQuestions;

  useEffect(() => {
    document.title = chatbot.name;
  }, [chatbot.name]);

  if (error) return <ChatErrorScreen message={error} onRetry={reload} />;

  return (
    <div className="flex h-dvh flex-col bg-gray-50">
      <ChatHeader chatbot={chatbot} onClear={clear} canClear={!pending && started} />
      <main className="flex min-h-0 flex-1 flex-col">
        <ChatMessages
          chatbot={chatbot}
          messages={messages}
          streaming={streaming}
          suggestions={suggestions}
          onPickSuggestion={(question) => void send(question)}
          onRate={rate}
        />
      </main>
      <footer className="shrink-0 border-t border-gray-200 bg-white pb-[env(safe-area-inset-bottom)]">
        <ChatComposer onSend={send} pending={pending} />
      </footer>
    </div>
  );
}
