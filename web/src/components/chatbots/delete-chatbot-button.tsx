import { Spinner } from '../ui/spinner';
import { cn } from '../../lib/cn';
import { useDeleteChatbot } from '../../lib/chatbots/use-delete-chatbot';
import { useCan } from '../../lib/workspace/use-can';
import { TrashIcon } from './chatbot-icons';

/** The trash button on a chatbot card: confirms, deletes, and the card disappears from the list (editors and above). */
export function DeleteChatbotButton({ id, name, className }: { id: string; name: string; className?: string }) {
  const { deleteChatbot, deleting } = useDeleteChatbot();
  const canWrite = useCan('chatbots:write');
  if (!canWrite) return null;
  return (
    <button
      type="button"
      onClick={() => void deleteChatbot(id)}
      disabled={deleting}
      aria-label={`Delete ${name}`}
      title="Delete"
      className={cn(
        'inline-flex size-9 items-center justify-center rounded-lg text-gray-500 transition-colors',
        'hover:bg-red-50 hover:text-red-600 disabled:cursor-not-allowed disabled:opacity-60',
        className,
      )}
    >
      {deleting ? <Spinner /> : <TrashIcon />}
    </button>
  );
}
