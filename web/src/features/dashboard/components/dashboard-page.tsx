import { PageContainer } from '../../../components/ui/page-container';
import { useSession } from '../../../lib/session/session-context';
import { displayName } from '../account-labels';
import { AccountOverviewCard } from './account-overview-card';
import { MyChatbotsCard } from './my-chatbots-card';

export function DashboardPage() {
  const { user } = useSession();
  // The route guard only renders this page for a signed-in user.
  if (!user) return null;

  return (
    <PageContainer className="py-8 sm:py-10">
      <div className="mb-8">
        <h1 className="text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">
          Welcome back, {displayName(user.name)}
        </h1>
        <p className="mt-1 text-sm text-gray-600">Here&apos;s an overview of your account.</p>
      </div>
      <div className="grid gap-6 lg:grid-cols-2">
        <AccountOverviewCard user={user} />
        <MyChatbotsCard plan={user.subscription} />
      </div>
    </PageContainer>
  );
}
