import { Button } from '../../../components/ui/button';
import { AlertIcon } from './chat-icons';

interface ChatErrorScreenProps {
  message: string;
  onRetry: () => void;
  /** In the widget: closes the panel, which the error would otherwise fill with no way out. */
  onClose?: () => void;
}

/**
 * What replaces the whole page when the chatbot cannot load or a reply fails (docs/product.md, Public chat): the
 * server's own message when it sent one (a refusal, a visitor's daily limit), and Try Again.
 */
export function ChatErrorScreen({ message, onRetry, onClose }: ChatErrorScreenProps) {
  return (
    <main className="flex min-h-dvh items-center justify-center bg-gray-50 px-6">
      <div className="w-full max-w-sm rounded-2xl border border-gray-200 bg-white p-8 text-center shadow-sm">
        <span className="mx-auto inline-flex size-12 items-center justify-center rounded-full bg-red-50 text-red-600">
          <AlertIcon />
        </span>
        <p role="alert" className="mt-4 text-base font-medium break-words text-gray-900">
          {message}
        </p>
        <Button className="mt-6" fullWidth onClick={onRetry}>
          Try Again
        </Button>
        {onClose ? (
          <Button className="mt-2" variant="secondary" fullWidth onClick={onClose}>
            Close chat
          </Button>
        ) : null}
      </div>
    </main>
  );
}
