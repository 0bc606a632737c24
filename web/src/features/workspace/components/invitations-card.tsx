import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Spinner } from '../../../components/ui/spinner';
import type { InvitationsQuery } from '../../../gql/graphql';
import { formatDate } from '../../../lib/format';
import { ROLE_LABELS } from '../../../lib/workspace/roles';
import { useInvitationActions } from '../hooks/use-invitation-actions';
import { WorkspaceSection } from './workspace-section';

type Invitation = InvitationsQuery['invitations'][number];

/** Invitations not accepted yet, newest first, each with Resend and Revoke. */
export function InvitationsCard({ invitations, loading, error }: { invitations: Invitation[]; loading: boolean; error: string | null }) {
  const { resend, revoke, busy, error: actionError } = useInvitationActions();
  return (
    <WorkspaceSection title="Pending invitations" description="They take a seat until they are accepted or revoked." flush>
      {(error ?? actionError) ? <Alert className="mx-6 mt-5">{error ?? actionError}</Alert> : null}
      {loading ? (
        <div className="flex justify-center py-8 text-brand-600">
          <Spinner className="size-6" label="Loading invitations" />
        </div>
      ) : invitations.length === 0 ? (
        <p className="px-6 py-5 text-sm text-gray-600">No pending invitations.</p>
      ) : (
        <ul className="divide-y divide-gray-100">
          {invitations.map((invitation) => (
            <li
              key={invitation.id}
              aria-label={invitation.email}
              className="flex flex-col gap-3 px-6 py-4 sm:flex-row sm:items-center sm:justify-between"
            >
              <div className="min-w-0">
                <p className="flex flex-wrap items-center gap-2 text-sm font-medium text-gray-900">
                  <span className="min-w-0 truncate" title={invitation.email}>
                    {invitation.email}
                  </span>
                  <Badge>{ROLE_LABELS[invitation.role]}</Badge>
                </p>
                <p className="text-xs wrap-anywhere text-gray-500">
                  Invited by {invitation.invitedBy} · expires {formatDate(invitation.expiresAt)}
                </p>
              </div>
              <div className="flex gap-2 sm:shrink-0">
                <Button variant="secondary" size="sm" disabled={busy} onClick={() => void resend(invitation.id)}>
                  Resend
                </Button>
                <Button
                  variant="ghost"
                  size="sm"
                  className="text-red-700 hover:bg-red-50 hover:text-red-800"
                  disabled={busy}
                  onClick={() => void revoke(invitation.id)}
                >
                  Revoke
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </WorkspaceSection>
  );
}
