import { Button } from '../../../components/ui/button';
import { cn } from '../../../lib/cn';
import type { PlanOffer } from '../plans';

interface PlanCardProps {
  plan: PlanOffer;
  highlighted?: boolean;
  actionLabel: string;
  onAction: () => void;
  /** True while a checkout is being created: the button shows "Processing..." and is disabled. */
  busy?: boolean;
  disabled?: boolean;
}

function CheckIcon() {
  return (
    <svg className="mt-0.5 size-5 shrink-0 text-brand-600" viewBox="0 0 20 20" fill="currentColor" aria-hidden="true">
      <path
        fillRule="evenodd"
        d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.58l7.3-7.3a1 1 0 0 1 1.4 0Z"
        clipRule="evenodd"
      />
    </svg>
  );
}

export function PlanCard({ plan, highlighted = false, actionLabel, onAction, busy = false, disabled = false }: PlanCardProps) {
  const headingId = `plan-${plan.id}-name`;
  return (
    <section
      aria-labelledby={headingId}
      className={cn(
        'relative flex flex-col rounded-2xl border bg-white p-6 shadow-sm sm:p-8',
        highlighted ? 'border-brand-600 ring-1 ring-brand-600' : 'border-gray-200',
      )}
    >
      {highlighted ? (
        <span className="absolute -top-3 left-6 rounded-full bg-brand-600 px-3 py-1 text-xs font-semibold text-white sm:left-8">
          Recommended
        </span>
      ) : null}
      <h2 id={headingId} className="text-lg font-semibold text-gray-900">
        {plan.name}
      </h2>
      <p className="mt-1 text-sm text-gray-600">{plan.description}</p>
      <p className="mt-6 flex items-baseline gap-1.5">
        <span className="text-4xl font-semibold tracking-tight text-gray-900">{plan.price}</span>
        <span className="text-sm text-gray-500">{plan.period}</span>
      </p>
      <Button
        className="mt-6"
        size="lg"
        fullWidth
        variant={highlighted ? 'primary' : 'secondary'}
        busy={busy}
        busyLabel="Processing..."
        disabled={disabled}
        onClick={onAction}
      >
        {actionLabel}
      </Button>
      <ul className="mt-8 space-y-3 text-sm text-gray-700">
        {plan.features.map((feature) => (
          <li key={feature} className="flex gap-3">
            <CheckIcon />
            <span>{feature}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
