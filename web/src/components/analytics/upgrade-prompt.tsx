import { cn } from '../../lib/cn';
import { LockIcon } from '../chatbots/chatbot-icons';
import { Badge } from '../ui/badge';
import { ButtonLink } from '../ui/button-link';

interface UpgradePromptProps {
  title: string;
  description: string;
  className?: string;
}

/**
 * What a free owner sees in place of a Pro-only view (the full analytics, the unanswered questions):
 * what it would show and the way to Pro, the same pricing page the locked History tab links to.
 */
export function UpgradePrompt({ title, description, className }: UpgradePromptProps) {
  return (
    <section
      aria-label={title}
      className={cn(
        'flex flex-col items-center rounded-2xl border border-dashed border-brand-200 bg-gradient-to-b from-brand-50/70 to-white px-6 py-10 text-center',
        className,
      )}
    >
      <span className="inline-flex size-11 items-center justify-center rounded-full bg-white text-brand-600 shadow-sm ring-1 ring-brand-100">
        <LockIcon className="size-5" />
      </span>
      <h3 className="mt-4 flex items-center gap-2 text-base font-semibold text-gray-900">
        {title}
        <Badge tone="brand">PRO</Badge>
      </h3>
      <p className="mt-1 max-w-md text-sm text-gray-600">{description}</p>
      <ButtonLink to="/pricing" className="mt-5">
        Upgrade to Pro
      </ButtonLink>
    </section>
  );
}
