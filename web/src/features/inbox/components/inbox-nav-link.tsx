import { NavButtonLink } from '../../../components/ui/nav-button-link';
import { useWaitingCount } from '../hooks/use-waiting-count';

/**
 * The header's "Inbox" link, for members who may read conversations, with the number of visitors
 * waiting for a person (live; no badge at zero).
 */
export function InboxNavLink() {
  const { allowed, count } = useWaitingCount();
  if (!allowed) return null;
  return (
    <NavButtonLink to="/inbox">
      Inbox
      {count > 0 ? (
        <span
          role="status"
          aria-label={`${count} waiting`}
          className="inline-flex min-w-5 items-center justify-center rounded-full bg-red-600 px-1.5 text-xs leading-5 font-semibold text-white"
        >
          {count > 99 ? '99+' : count}
        </span>
      ) : null}
    </NavButtonLink>
  );
}
