import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { Card, CardBody } from '../../../components/ui/card';
import { PageContainer } from '../../../components/ui/page-container';
import { useRouteNotice } from '../../../lib/route-notice';
import { useSession } from '../../../lib/session/session-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { CreateWorkspaceDialog } from './create-workspace-dialog';
import { MailIcon, PlusIcon, UsersIcon } from './workspace-icons';

export const NO_WORKSPACE_HEADING = 'You are not a member of any workspace';

/**
 * The dashboard of a person who belongs to no workspace (they transferred their personal one and
 * left every other; docs/product.md, Dashboard): nothing of any workspace, and the two ways back in,
 * creating one or joining one by an invitation.
 */
export function NoWorkspacePage() {
  useDocumentTitle('No workspace');
  const { user } = useSession();
  const [creating, setCreating] = useState(false);
  // E.g. "You have left the workspace." after leaving the last one.
  const notice = useRouteNotice();

  // The route guard only renders this page for a signed-in user.
  if (!user) return null;

  return (
    <PageContainer className="py-10 sm:py-14">
      <div className="mx-auto max-w-3xl">
        {notice ? (
          <Alert tone="success" className="mb-6">
            {notice}
          </Alert>
        ) : null}
        <div className="text-center">
          <span className="mx-auto flex size-12 items-center justify-center rounded-full bg-brand-50 text-brand-600 ring-1 ring-brand-100">
            <UsersIcon className="size-6" />
          </span>
          <h1 className="mt-4 text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">{NO_WORKSPACE_HEADING}</h1>
          <p className="mx-auto mt-2 max-w-xl text-sm text-gray-600">
            Chatbots, their conversations, the plan and credit all belong to a workspace. Create one of your own, or join a team&apos;s with
            an invitation.
          </p>
        </div>

        <div className="mt-8 grid gap-6 sm:grid-cols-2 [&>*]:min-w-0">
          <Card>
            <CardBody className="flex h-full flex-col p-6">
              <span className="flex size-10 items-center justify-center rounded-xl bg-brand-50 text-brand-600">
                <PlusIcon className="size-5" />
              </span>
              <h2 className="mt-4 text-base font-semibold text-gray-900">Create a workspace</h2>
              <p className="mt-1 flex-1 text-sm text-gray-600">
                Start again with chatbots, a plan and members of your own. You will be its owner, on the free plan.
              </p>
              <Button className="mt-5 self-start" onClick={() => setCreating(true)}>
                Create workspace
              </Button>
            </CardBody>
          </Card>
          <Card>
            <CardBody className="flex h-full flex-col p-6">
              <span className="flex size-10 items-center justify-center rounded-xl bg-brand-50 text-brand-600">
                <MailIcon className="size-5" />
              </span>
              <h2 className="mt-4 text-base font-semibold text-gray-900">Join with an invitation</h2>
              <p className="mt-1 text-sm text-gray-600">Ask an owner or admin of the workspace to invite your email address:</p>
              <p className="mt-2 rounded-lg bg-gray-50 px-3 py-2 text-sm font-medium wrap-anywhere text-gray-900 ring-1 ring-gray-200 ring-inset">
                {user.email}
              </p>
              <p className="mt-2 text-sm text-gray-600">
                Open the link in their invitation mail while signed in with this email, and choose Accept to join.
              </p>
              <p className="mt-3 text-xs text-gray-500">A link works for 7 days; ask for a new one if yours has expired.</p>
            </CardBody>
          </Card>
        </div>

        <p className="mt-8 text-center text-sm text-gray-600">
          Your profile, sign-in and data are still yours on the{' '}
          <Link to="/account" className="rounded-sm font-medium text-brand-700 hover:text-brand-800">
            Account
          </Link>{' '}
          page.
        </p>
      </div>

      {creating ? <CreateWorkspaceDialog onClose={() => setCreating(false)} /> : null}
    </PageContainer>
  );
}
