import { Badge } from '../../../components/ui/badge';
import { cn } from '../../../lib/cn';

/**
 * A verified visitor (identity verification: a userHash that matched the chatbot's identity
 * secret): the "Verified" badge with the user id and the email told with it.
 */
export function VerifiedVisitor({
  conversation,
  className,
}: {
  conversation: { verifiedUserId?: string | null; verifiedEmail?: string | null };
  className?: string;
}) {
  if (!conversation.verifiedUserId) return null;
  return (
    <span className={cn('flex flex-wrap items-center gap-2 text-sm text-gray-700', className)}>
      <Badge tone="success">Verified</Badge>
      <span className="break-all">
        {conversation.verifiedUserId}
        {conversation.verifiedEmail ? ` · ${conversation.verifiedEmail}` : ''}
      </span>
    </span>
  );
}
