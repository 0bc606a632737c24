import { ChatbotAvatar } from '../../../components/chatbots/chatbot-avatar';
import type { PublicChatbot } from '../api/public-chat-api';
import { ChevronDownIcon } from '../../../components/citations/source-icons';
import { CloseIcon } from './chat-icons';

interface ChatHeaderProps {
  chatbot: PublicChatbot;
  onClear: () => void;
  canClear: boolean;
  /** In the widget: closes the panel (the host page gets the close message). */
  onClose?: () => void;
}

const iconButtonClass =
  'inline-flex size-10 shrink-0 items-center justify-center rounded-full text-gray-500 transition-colors hover:bg-gray-100 hover:text-gray-900 disabled:cursor-not-allowed disabled:opacity-40 disabled:hover:bg-transparent disabled:hover:text-gray-500';

export function ChatHeader({ chatbot, onClear, canClear, onClose }: ChatHeaderProps) {
  return (
    <header className="shrink-0 border-b border-gray-200 bg-white/90 backdrop-blur supports-[backdrop-filter]:bg-white/75">
      <div className="mx-auto flex w-full max-w-3xl items-center gap-3 px-4 py-3 sm:px-6">
        <ChatbotAvatar name={chatbot.name} src={chatbot.profilePicture} size="sm" />
        <div className="min-w-0 flex-1">
          <h1 className="truncate text-base font-semibold text-gray-900">{chatbot.name}</h1>
          <p className="flex items-center gap-1.5 text-xs text-gray-500">
            <span aria-hidden="true" className="size-1.5 rounded-full bg-green-500" />
            AI assistant
          </p>
        </div>
        <button
          type="button"
          onClick={onClear}
          disabled={!canClear}
          aria-label="Clear conversation"
          title="Clear conversation"
          className={iconButtonClass}
        >
          <CloseIcon />
        </button>
        {onClose ? (
          <button type="button" onClick={onClose} aria-label="Close chat" title="Close chat" className={iconButtonClass}>
            <ChevronDownIcon className="size-5" />
          </button>
        ) : null}
      </div>
    </header>
  );
}
