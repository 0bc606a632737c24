import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { ButtonLink } from '../../../components/ui/button-link';
import { Card } from '../../../components/ui/card';
import { PageContainer } from '../../../components/ui/page-container';
import { Spinner } from '../../../components/ui/spinner';
import { formatDateTime } from '../../../lib/format';
import { withReturnTo } from '../../../lib/return-to';
import { useSession } from '../../../lib/session/session-context';
import { ROLE_DESCRIPTIONS, ROLE_LABELS } from '../../../lib/workspace/roles';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { useAcceptInvitation, useInvitationPreview } from '../hooks/use-invitation';

/** /invitations/:token: what the link invites to, and joining it (signed in with the invited email). */
export function InvitationPage() {
  useDocumentTitle('Invitation');
  const { token = '' } = useParams();
  const session = useSession();
  const { preview, loading, error } = useInvitationPreview(token);
  const { accept, accepting, error: acceptError } = useAcceptInvitation(token);
  const here = `/invitations/${encodeURIComponent(token)}`;
  const navigate = useNavigate();
  const [switchingAccount, setSwitchingAccount] = useState(false);

  // Signed in as someone else: sign out, then sign in as the invited email and come back here.
  async function signInAsInvited() {
    setSwitchingAccount(true);
    await session.logout();
    await navigate(withReturnTo('/login', here));
  }

  let body;
  if (loading || session.loading) {
    body = (
      <div className="flex justify-center py-10 text-brand-600">
        <Spinner className="size-8" label="Loading invitation" />
      </div>
    );
  } else if (error || !preview) {
    body = (
      <>
        <h1 className="text-2xl font-semibold tracking-tight text-gray-900">This invitation cannot be used</h1>
        <Alert className="mt-5">{error ?? 'This invitation is not valid.'}</Alert>
        <p className="mt-5 text-sm text-gray-600">Ask the person who invited you to send a new invitation.</p>
      </>
    );
  } else {
    const signedInAs = session.user?.email ?? null;
    const wrongAccount = signedInAs !== null && signedInAs.toLowerCase() !== preview.email.toLowerCase();
    body = (
      <>
        <p className="text-sm font-medium text-brand-700">Invitation</p>
        <h1 className="mt-1 text-2xl font-semibold tracking-tight break-words text-gray-900">Join {preview.workspaceName}</h1>
        <p className="mt-2 text-sm wrap-anywhere text-gray-600">
          {preview.invitedBy} invited {preview.email} to work in {preview.workspaceName} on Parley.
        </p>
        <dl className="mt-6 divide-y divide-gray-100 rounded-xl border border-gray-200 text-sm">
          <div className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:justify-between">
            <dt className="text-gray-600">Role</dt>
            <dd className="text-gray-900 sm:text-right">
              <span className="font-medium">{ROLE_LABELS[preview.role]}</span>
              <span className="block text-xs text-gray-600">{ROLE_DESCRIPTIONS[preview.role]}</span>
            </dd>
          </div>
          <div className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:justify-between">
            <dt className="text-gray-600">Invited by</dt>
            <dd className="wrap-anywhere text-gray-900">{preview.invitedBy}</dd>
          </div>
          <div className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:justify-between">
            <dt className="text-gray-600">Expires</dt>
            <dd className="text-gray-900">{formatDateTime(preview.expiresAt)}</dd>
          </div>
        </dl>
        {acceptError ? <Alert className="mt-5">{acceptError}</Alert> : null}
        {signedInAs === null ? (
          <div className="mt-6 space-y-3">
            <p className="text-sm wrap-anywhere text-gray-600">
              Sign up or sign in with {preview.email} to accept; you come back here afterwards.
            </p>
            <div className="grid gap-2 sm:grid-cols-2">
              <ButtonLink to={withReturnTo('/register', here)}>Sign up</ButtonLink>
              <ButtonLink to={withReturnTo('/login', here)} variant="secondary">
                Sign in
              </ButtonLink>
            </div>
          </div>
        ) : (
          <div className="mt-6 space-y-3">
            {wrongAccount ? (
              <Alert tone="info" className="wrap-anywhere">
                This invitation is for {preview.email}, and you are signed in as {signedInAs}. Sign in with the invited email to accept it.
              </Alert>
            ) : null}
            {wrongAccount ? (
              <Button
                size="lg"
                variant="secondary"
                fullWidth
                busy={switchingAccount}
                busyLabel="Signing out..."
                onClick={() => void signInAsInvited()}
              >
                Sign in with another account
              </Button>
            ) : (
              <Button size="lg" fullWidth busy={accepting} busyLabel="Joining..." onClick={() => void accept()}>
                Accept invitation
              </Button>
            )}
          </div>
        )}
      </>
    );
  }

  return (
    <PageContainer className="flex flex-1 items-start justify-center py-10 sm:py-16">
      <Card className="w-full max-w-lg p-6 sm:p-8">{body}</Card>
    </PageContainer>
  );
}
