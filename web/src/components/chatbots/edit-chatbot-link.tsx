import { Link } from 'react-router-dom';
import { cn } from '../../lib/cn';
import { EditIcon } from './chatbot-icons';

/** The pencil button on a chatbot card; it is a link to the chatbot's settings. */
export function EditChatbotLink({ id, name, className }: { id: string; name: string; className?: string }) {
  return (
    <Link
      to={`/chatbots/${id}`}
      aria-label={`Edit ${name}`}
      title="Edit"
      className={cn(
        'inline-flex size-9 items-center justify-center rounded-lg text-gray-500 transition-colors hover:bg-gray-100 hover:text-gray-900',
        className,
      )}
    >
      <EditIcon />
    </Link>
  );
}
