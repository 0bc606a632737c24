import { buttonClasses } from '../../../components/ui/button-styles';

interface ConfirmationCardProps {
  /** Absent while a reply is pending: the buttons wait. */
  onDecide?: (decision: 'confirm' | 'cancel') => void;
}

/**
 * Under the answer that asks it ("Cancel order (order id: 1042)?"): an action the chatbot may run only with the visitor's say-so: nothing happens until Confirm (the
 * server runs the call it stored when the chatbot asked); Cancel tells the chatbot no.
 */
export function ConfirmationCard({ onDecide }: ConfirmationCardProps) {
  return (
    <div role="group" aria-label="Confirm this action" className="mt-2 flex flex-wrap items-center gap-2">
      <p className="w-full text-xs text-gray-600">Nothing happens until you confirm.</p>
      <div className="flex gap-2">
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
