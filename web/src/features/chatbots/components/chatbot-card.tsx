import { Link } from 'react-router-dom';
import { ChatbotAvatar } from '../../../../chat-page/src/components/chatbots/chatbot-avatar';
import { ExternalLinkIcon } from '../../../components/chatbots/chatbot-icons';
import { DeleteChatbotButton } from '../../../components/chatbots/delete-chatbot-button';
import { EditChatbotLink } from '../../../components/chatbots/edit-chatbot-link';
import { UnansweredCountBadge } from '../../../components/chatbots/unanswered-count-badge';
import { Badge } from '../../../components/ui/badge';
import type { ChatbotSummary } from '../../../lib/chatbots/chatbot-list';
import { interactionsLabel } from '../../../lib/chatbots/chatbot-rules';
import { formatDate } from '../../../lib/format';

/**
 * One chatbot on /chatbots. The whole card opens the chatbot (its name is the link, stretched over
 * the card); the buttons along the bottom sit above that link so they stay separately clickable.
 */
export function ChatbotCard({ chatbot }: { chatbot: ChatbotSummary }) {
  return (
    <article className="group relative flex flex-col rounded-2xl border border-gray-200 bg-white p-5 shadow-sm transition-shadow hover:border-gray-300 hover:shadow-md">
      <div className="flex items-start gap-3">
        <ChatbotAvatar name={chatbot.name} src={chatbot.profilePicture} />
        <div className="min-w-0 flex-1">
          <h2 className="truncate text-base font-semibold text-gray-900">
            <Link
              to={`/chatbots/${chatbot.id}`}
              className="rounded-sm after:absolute after:inset-0 after:rounded-2xl focus-visible:outline-none focus-visible:after:outline-2 focus-visible:after:outline-offset-2 focus-visible:after:outline-brand-500"
            >
              {chatbot.name}
            </Link>
          </h2>
          <p className="mt-0.5 text-sm text-gray-500">Created on {formatDate(chatbot.createdAt)}</p>
        </div>
        <Badge tone={chatbot.isActive ? 'success' : 'neutral'}>{chatbot.isActive ? 'Active' : 'Inactive'}</Badge>
      </div>

      <p className="mt-4 flex flex-wrap gap-x-3 gap-y-1 text-sm text-gray-600">
        <span className="font-medium text-gray-900">{interactionsLabel(chatbot.interactions)}</span>
        {chatbot.lastInteraction ? <span>Last active {formatDate(chatbot.lastInteraction)}</span> : null}
        <UnansweredCountBadge count={chatbot.openUnansweredQuestions} />
      </p>

      <div className="relative z-10 mt-5 flex items-center justify-between gap-2 border-t border-gray-100 pt-3">
        <a
          href={`/chat/${chatbot.uniqueId}`}
          target="_blank"
          rel="noopener noreferrer"
          className="inline-flex items-center gap-1.5 rounded-md px-1 py-1 text-sm font-medium text-brand-600 hover:text-brand-700"
        >
          Open Chat
          <ExternalLinkIcon className="size-3.5" />
          <span className="sr-only">(opens in a new tab)</span>
        </a>
        <div className="flex items-center gap-1">
          <EditChatbotLink id={chatbot.id} name={chatbot.name} />
          <DeleteChatbotButton id={chatbot.id} name={chatbot.name} />
        </div>
      </div>
    </article>
  );
}
