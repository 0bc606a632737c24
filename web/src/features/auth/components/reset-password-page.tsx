import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { NewPasswordFields } from '../../../components/ui/new-password-fields';
import { withNotice } from '../../../lib/route-notice';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { useResetPassword } from '../hooks/use-reset-password';
import { AuthCard, textLinkClasses } from './auth-card';

export const INVALID_RESET_LINK_MESSAGE = 'This reset link is invalid.';

function RequestNewLink() {
  return (
    <Link to="/forgot-password" className={textLinkClasses}>
      Request a new link
    </Link>
  );
}

/** Where the emailed link lands: /reset-password?token=… */
export function ResetPasswordPage() {
  useDocumentTitle('Reset password');
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const navigate = useNavigate();
  const { resetPassword, loading, error, offerNewLink } = useResetPassword();
  const [password, setPassword] = useState('');
  const [password2, setPassword2] = useState('');

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const done = await resetPassword(token, { password, password2 });
    // Replacing the entry drops the used token from the browser's history.
    if (done) await navigate('/login', { replace: true, state: withNotice(done) });
  }

  const footer = (
    <Link to="/login" className={textLinkClasses}>
      Back to login
    </Link>
  );

  if (!token) {
    return (
      <AuthCard title="Choose a new password" subtitle="Reset links are sent by email." footer={footer}>
        <div className="space-y-4">
          <Alert>{INVALID_RESET_LINK_MESSAGE}</Alert>
          <p className="text-sm text-gray-700">
            Open the link from the email exactly as it was sent, or <RequestNewLink />.
          </p>
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Choose a new password" subtitle="Other devices will be signed out once it is changed." footer={footer}>
      <form onSubmit={handleSubmit} className="space-y-5">
        {error ? (
          <Alert>
            <p>{error}</p>
            {offerNewLink ? (
              <p className="mt-1">
                <RequestNewLink />
              </p>
            ) : null}
          </Alert>
        ) : null}
        <NewPasswordFields password={password} password2={password2} onPasswordChange={setPassword} onPassword2Change={setPassword2} />
        <Button type="submit" size="lg" fullWidth busy={loading} busyLabel="Saving...">
          Reset password
        </Button>
      </form>
    </AuthCard>
  );
}
