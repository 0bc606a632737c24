import { buttonClasses } from '../../../components/ui/button-styles';

interface ConfirmationCardProps {
  /** What the chatbot is about to do ("Cancel order (order id: 1042)?"). */
  question: string;
  /** Absent while a reply is pending: the buttons wait. */
  onDecide?: (decision: 'confirm' | 'cancel') => void;
}

/**
 * An action the chatbot may run only with the visitor's say-so: nothing happens until Confirm (the
 * server runs the call it stored when the chatbot asked); Cancel tells the chatbot no.
 */
export function ConfirmationCard({ question, onDecide }: ConfirmationCardProps) {
  return (
    <div role="group" aria-label="Confirm this action" className="mt-2 max-w-md rounded-xl border border-gray-200 bg-white p-3 shadow-sm">
      <p className="text-sm font-medium text-gray-900">{question}</p>
      <p className="mt-0.5 text-xs text-gray-600">Nothing happens until you confirm.</p>
      <div className="mt-3 flex gap-2">
        <button type="button" disabled={!onDecide} onClick={() => onDecide?.('confirm')} className={buttonClasses('primary', 'sm')}>
          Confirm
        </button>
        <button type="button" disabled={!onDecide} onClick={() => onDecide?.('cancel')} className={buttonClasses('secondary', 'sm')}>
          Cancel
        </button>
      </div>
    </div>
  );
}
