import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { SelectField } from '../../../components/ui/select-field';
import { TextField } from '../../../components/ui/text-field';
import type { WorkspaceRole } from '../../../gql/graphql';
import { ROLE_DESCRIPTIONS, ROLE_LABELS, seatsLabel, type Workspace } from '../../../lib/workspace/roles';
import { useInviteMember } from '../hooks/use-invitation-actions';
import { WorkspaceSection } from './workspace-section';

/** Inviting someone by email with a role; the seats the plan allows are shown beside it. */
export function InviteMemberCard({ workspace, seatsUsed }: { workspace: Workspace; seatsUsed: number }) {
  const { invite, inviting, error } = useInviteMember();
  // Ownership moves by transfer, so an invitation gives at most admin.
  const roles = workspace.assignableRoles.filter((role) => role !== 'OWNER');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('EDITOR');
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSentTo(null);
    if (await invite(email, role)) {
      setSentTo(email.trim());
      setEmail('');
    }
  }

  return (
    <WorkspaceSection
      title="Invite a member"
      description={seatsLabel(seatsUsed, workspace.seatLimit) + ' used, pending invitations included.'}
    >
      <form onSubmit={handleSubmit} className="space-y-4">
        {error ? <Alert>{error}</Alert> : null}
        {sentTo && !error ? <Alert tone="success">Invitation sent to {sentTo}.</Alert> : null}
        {seatsUsed >= workspace.seatLimit && !error && !sentTo ? (
          <Alert tone="info">
            Every seat is taken. Remove a member or revoke an invitation, or move to a plan with more seats, to invite someone.
          </Alert>
        ) : null}
        <TextField
          label="Email"
          name="inviteEmail"
          type="email"
          autoComplete="off"
          placeholder="teammate@example.com"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <div>
          <SelectField
            label="Role"
            name="inviteRole"
            value={role}
            options={roles.map((r) => ({ value: r, label: ROLE_LABELS[r] }))}
            onChange={(e) => setRole(e.target.value as WorkspaceRole)}
          />
          <p className="mt-1.5 text-xs text-gray-500">{ROLE_DESCRIPTIONS[role]}</p>
        </div>
        <div className="flex justify-end">
          <Button type="submit" busy={inviting} busyLabel="Sending...">
            Send invitation
          </Button>
        </div>
      </form>
    </WorkspaceSection>
  );
}
