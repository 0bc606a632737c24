import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Spinner } from '../../../components/ui/spinner';
import { writeToken } from '../../../lib/token-storage';
import { writeWorkspaceId } from '../../../lib/workspace/workspace-storage';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { AuthCard, textLinkClasses } from './auth-card';

export const SSO_CALLBACK_MISSING_MESSAGE = 'This single sign-on link is incomplete. Please sign in again.';

/**
 * /login/sso: where the gateway sends the browser after a sign-in through the identity provider, with
 * the session in the URL fragment (which no server sees). The token is stored, the fragment removed,
 * and the dashboard loaded afresh in the workspace signed into.
 */
export function SsoCallbackPage() {
  useDocumentTitle('Signing in');
  const [missing, setMissing] = useState(false);
  useEffect(() => {
    const params = new URLSearchParams(window.location.hash.slice(1));
    const token = params.get('token');
    window.history.replaceState(null, '', window.location.pathname);
    if (!token) {
      setMissing(true);
      return;
    }
    writeToken(token);
    const workspace = params.get('workspace');
    if (workspace) writeWorkspaceId(workspace);
    window.location.replace('/dashboard');
  }, []);
  return (
    <AuthCard
      title="Signing in"
      subtitle="Through your workspace's single sign-on."
      footer={
        <Link to="/login" className={textLinkClasses}>
          Back to sign in
        </Link>
      }
    >
      {missing ? <Alert>{SSO_CALLBACK_MISSING_MESSAGE}</Alert> : <Spinner className="size-8" label="Signing in" />}
    </AuthCard>
  );
}
