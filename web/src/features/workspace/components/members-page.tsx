import { Alert } from '../../../components/ui/alert';
import { ButtonLink } from '../../../components/ui/button-link';
import { PageContainer } from '../../../components/ui/page-container';
import { Spinner } from '../../../components/ui/spinner';
import { useSession } from '../../../lib/session/session-context';
import { hasPermission, seatsLabel } from '../../../lib/workspace/roles';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { useInvitations } from '../hooks/use-invitations';
import { useMembers } from '../hooks/use-members';
import { DeleteWorkspaceCard } from './delete-workspace-card';
import { InvitationsCard } from './invitations-card';
import { InviteMemberCard } from './invite-member-card';
import { MembersCard } from './members-card';
import { WorkspacePageHeader } from './workspace-page-header';
import { WorkspaceSettingsCard } from './workspace-settings-card';
import { DataRetentionCard } from './data-retention-card';

/** /workspace/members: the current workspace's members, invitations and settings. */
export function MembersPage() {
  useDocumentTitle('Members');
  const { user } = useSession();
  const workspace = useWorkspace();
  const current = workspace.current;
  const canManage = hasPermission(current, 'members:manage');
  const members = useMembers();
  const invitations = useInvitations(canManage);

  if (!user) return null;
  if (!current) {
    return (
      <PageContainer className="py-8 sm:py-10">
        {workspace.error ? (
          <Alert>{workspace.error}</Alert>
        ) : (
          <div className="flex justify-center py-16 text-brand-600">
            <Spinner className="size-8" label="Loading workspace" />
          </div>
        )}
      </PageContainer>
    );
  }

  const seatsUsed = current.memberCount + invitations.invitations.length;

  return (
    <PageContainer className="py-8 sm:py-10">
      <WorkspacePageHeader
        title="Members"
        subtitle={`${seatsLabel(seatsUsed, current.seatLimit)} used`}
        action={
          hasPermission(current, 'audit:read') ? (
            <ButtonLink to="/workspace/audit-log" variant="secondary" size="sm">
              Audit log
            </ButtonLink>
          ) : null
        }
      />
      <div className="grid gap-6 lg:grid-cols-5 lg:items-start">
        <div className={canManage ? 'min-w-0 space-y-6 lg:col-span-3' : 'min-w-0 space-y-6 lg:col-span-5'}>
          <MembersCard workspace={current} userId={user.id} members={members.members} loading={members.loading} error={members.error} />
          {canManage ? (
            <InvitationsCard invitations={invitations.invitations} loading={invitations.loading} error={invitations.error} />
          ) : null}
        </div>
        {canManage ? (
          <div className="min-w-0 space-y-6 lg:col-span-2">
            <InviteMemberCard workspace={current} seatsUsed={seatsUsed} />
            <WorkspaceSettingsCard key={current.id + current.name} workspace={current} />
            <DataRetentionCard key={`retention-${current.id}`} />
          </div>
        ) : null}
        {hasPermission(current, 'workspace:delete') && !current.personal ? (
          <div className="min-w-0 lg:col-span-5">
            <DeleteWorkspaceCard workspace={current} />
          </div>
        ) : null}
      </div>
    </PageContainer>
  );
}
