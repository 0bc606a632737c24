import { useState } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { SelectField } from '../../../components/ui/select-field';
import { Spinner } from '../../../components/ui/spinner';
import type { MembersQuery, WorkspaceRole } from '../../../gql/graphql';
import { formatDate } from '../../../lib/format';
import { hasPermission, ROLE_LABELS, type Workspace } from '../../../lib/workspace/roles';
import { useChangeMemberRole, useLeaveWorkspace, useRemoveMember, useTransferOwnership } from '../hooks/use-member-actions';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { WorkspaceSection } from './workspace-section';

type Member = MembersQuery['members'][number];

interface MembersCardProps {
  workspace: Workspace;
  userId: string;
  members: Member[];
  loading: boolean;
  error: string | null;
}

type Pending = { kind: 'remove' | 'transfer'; member: Member } | { kind: 'leave' };

/** Who belongs to the workspace, their roles, and what the signed-in member may do about them. */
export function MembersCard({ workspace, userId, members, loading, error }: MembersCardProps) {
  const { changeRole, changing, error: roleError } = useChangeMemberRole();
  const removal = useRemoveMember();
  const leaving = useLeaveWorkspace();
  const transfer = useTransferOwnership();
  const [pending, setPending] = useState<Pending | null>(null);

  const canManage = hasPermission(workspace, 'members:manage');
  const canTransfer = hasPermission(workspace, 'ownership:transfer');
  const iAmOwner = workspace.role === 'OWNER';
  const roleOptions = workspace.assignableRoles;
  // Only an owner touches an owner: an admin can neither demote nor remove one.
  // The last owner cannot leave (ownership moves by transfer), so they are not offered it.
  const lastOwner = workspace.role === 'OWNER' && members.filter((m) => m.role === 'OWNER').length <= 1;
  const canTouch = (member: Member) => canManage && member.userId !== userId && (member.role !== 'OWNER' || iAmOwner);

  function close() {
    removal.reset();
    leaving.reset();
    transfer.reset();
    setPending(null);
  }

  async function confirm() {
    if (!pending) return;
    if (pending.kind === 'leave') {
      await leaving.leave();
      return;
    }
    const done =
      pending.kind === 'remove' ? await removal.removeMember(pending.member.userId) : await transfer.transfer(pending.member.userId);
    if (done) setPending(null);
  }

  return (
    <WorkspaceSection title="Members" description={`Everyone in ${workspace.name} and what they may do.`} flush>
      {error ? <Alert className="m-6">{error}</Alert> : null}
      {roleError ? <Alert className="mx-6 mt-5">{roleError}</Alert> : null}
      {loading ? (
        <div className="flex justify-center py-10 text-brand-600">
          <Spinner className="size-6" label="Loading members" />
        </div>
      ) : (
        <ul className="divide-y divide-gray-100">
          {members.map((member) => {
            const isMe = member.userId === userId;
            const label = member.name || member.email;
            return (
              <li
                key={member.userId}
                className="flex flex-col gap-3 px-6 py-4 sm:flex-row sm:items-center sm:justify-between"
                aria-label={label}
              >
                <div className="min-w-0">
                  <p className="flex flex-wrap items-center gap-2 text-sm font-medium text-gray-900">
                    <span className="min-w-0 truncate" title={member.email}>
                      {label}
                    </span>
                    {isMe ? <Badge tone="brand">You</Badge> : null}
                  </p>
                  {member.name ? <p className="truncate text-sm text-gray-600">{member.email}</p> : null}
                  <p className="text-xs text-gray-500">Joined {formatDate(member.joinedAt)}</p>
                </div>
                <div className="flex flex-wrap items-center gap-2 sm:shrink-0 sm:justify-end">
                  {canTouch(member) && roleOptions.includes(member.role) ? (
                    <SelectField
                      label={`Role of ${label}`}
                      hideLabel
                      controlClassName="h-9 w-32"
                      value={member.role}
                      disabled={changing}
                      options={roleOptions.map((role) => ({ value: role, label: ROLE_LABELS[role] }))}
                      onChange={(e) => void changeRole(member.userId, e.target.value as WorkspaceRole)}
                    />
                  ) : (
                    <Badge tone={member.role === 'OWNER' ? 'brand' : 'neutral'}>{ROLE_LABELS[member.role]}</Badge>
                  )}
                  {canTransfer && !isMe && member.role !== 'OWNER' ? (
                    <Button variant="secondary" size="sm" onClick={() => setPending({ kind: 'transfer', member })}>
                      Make owner
                    </Button>
                  ) : null}
                  {canTouch(member) ? (
                    <Button
                      variant="ghost"
                      size="sm"
                      className="text-red-700 hover:bg-red-50 hover:text-red-800"
                      onClick={() => setPending({ kind: 'remove', member })}
                    >
                      Remove
                    </Button>
                  ) : null}
                  {isMe && !lastOwner ? (
                    <Button
                      variant="ghost"
                      size="sm"
                      className="text-red-700 hover:bg-red-50 hover:text-red-800"
                      onClick={() => setPending({ kind: 'leave' })}
                    >
                      Leave
                    </Button>
                  ) : null}
                </div>
              </li>
            );
          })}
        </ul>
      )}

      {pending?.kind === 'remove' ? (
        <ConfirmDialog
          title="Remove member"
          confirmLabel="Remove"
          busyLabel="Removing..."
          busy={removal.removing}
          error={removal.error}
          onConfirm={() => void confirm()}
          onClose={close}
        >
          {pending.member.name || pending.member.email} loses access to {workspace.name} at once. You can invite them again later.
        </ConfirmDialog>
      ) : null}
      {pending?.kind === 'transfer' ? (
        <ConfirmDialog
          title="Transfer ownership"
          confirmLabel="Transfer ownership"
          busyLabel="Transferring..."
          busy={transfer.transferring}
          error={transfer.error}
          onConfirm={() => void confirm()}
          onClose={close}
        >
          {pending.member.name || pending.member.email} becomes an owner of {workspace.name}, with billing and deleting the workspace, and
          you become an admin.
        </ConfirmDialog>
      ) : null}
      {pending?.kind === 'leave' ? (
        <ConfirmDialog
          title="Leave workspace"
          confirmLabel="Leave"
          busyLabel="Leaving..."
          busy={leaving.leaving}
          error={leaving.error}
          onConfirm={() => void confirm()}
          onClose={close}
        >
          You lose access to {workspace.name} and its chatbots. Only a new invitation lets you back in.
        </ConfirmDialog>
      ) : null}
    </WorkspaceSection>
  );
}
