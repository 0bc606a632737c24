import { PageContainer } from '../../../components/ui/page-container';
import { Spinner } from '../../../components/ui/spinner';
import { useSession } from '../../../lib/session/session-context';
import { useWorkspace } from '../../../lib/workspace/workspace-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { useAccountDetails } from '../hooks/use-account-details';
import { DeleteAccountCard } from './delete-account-card';
import { DevicesCard } from './devices-card';
import { EmailCard } from './email-card';
import { PasswordCard } from './password-card';
import { PlanCard } from './plan-card';
import { ProfileCard } from './profile-card';
import { TwoFactorCard } from './two-factor-card';
import { YourDataCard } from './your-data-card';
import { Alert } from '../../../components/ui/alert';
import { WorkspaceEyebrow } from '../../../components/workspace/workspace-eyebrow';

/** /account: the owner's profile, sign-in, devices, plan and data, and leaving. */
export function AccountPage() {
  useDocumentTitle('Account');
  const { user } = useSession();
  const details = useAccountDetails();
  // The plan is a workspace's: a person in no workspace has none to show or change, and until the
  // workspaces are answered it is not known which.
  const workspace = useWorkspace();
  const showPlan = !workspace.loading && !workspace.noWorkspace;

  // The route guard only renders this page for a signed-in user.
  if (!user) return null;

  return (
    <PageContainer className="py-8 sm:py-10">
      <div className="mb-8">
        <WorkspaceEyebrow />
        <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">Account</h1>
        <p className="mt-1 text-sm text-gray-600">Manage your profile, sign-in, plan and data.</p>
      </div>
      {workspace.current?.requireTwoFactor && !user.twoFactorEnabled ? (
        <Alert className="mb-6">{`${workspace.current.name} requires two-factor sign-in. Set it up below to continue.`}</Alert>
      ) : null}
      {details.loading ? (
        // The forms start from the fresh account, so they wait for it.
        <div className="flex justify-center py-16 text-brand-600">
          <Spinner className="size-8" label="Loading account" />
        </div>
      ) : (
        <div className="grid gap-6 lg:grid-cols-2 lg:items-start">
          <div className="space-y-6">
            <ProfileCard name={user.name} createdAt={details.createdAt} />
            <EmailCard email={user.email} />
            <PasswordCard />
            <div id="two-factor">
              <TwoFactorCard />
            </div>
          </div>
          <div className="space-y-6">
            {showPlan ? <PlanCard plan={user.subscription} /> : null}
            <DevicesCard />
            <YourDataCard />
          </div>
          <div className="lg:col-span-2">
            <DeleteAccountCard />
          </div>
        </div>
      )}
    </PageContainer>
  );
}
