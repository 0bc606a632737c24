import { useCan } from '../../lib/workspace/use-can';
import { ButtonLink } from '../ui/button-link';
import { ChatIcon, PlusIcon } from './chatbot-icons';

/** What the dashboard and /chatbots show for an owner without chatbots. */
export function ChatbotsEmptyState() {
  // Below editor, a member reads the workspace's chatbots and cannot create one.
  const canWrite = useCan('chatbots:write');
  return (
    <div className="flex flex-col items-center rounded-2xl border border-dashed border-gray-300 px-6 py-12 text-center">
      <span className="inline-flex size-12 items-center justify-center rounded-full bg-brand-50 text-brand-600">
        <ChatIcon className="size-6" />
      </span>
      <h3 className="mt-4 text-base font-semibold text-gray-900">No chatbots yet</h3>
      {canWrite ? (
        <>
          <p className="mt-1 text-sm text-gray-600">Create your first chatbot to get started</p>
          <ButtonLink to="/chatbots/create" className="mt-6">
            <PlusIcon />
            Create New Chatbot
          </ButtonLink>
        </>
      ) : (
        <p className="mt-1 text-sm text-gray-600">An editor, admin or owner of this workspace can create one.</p>
      )}
    </div>
  );
}
