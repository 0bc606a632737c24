import { useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { returnPathOf, withReturnTo } from '../../../lib/return-to';
import { useRouteNotice } from '../../../lib/route-notice';
import { useSession } from '../../../lib/session/session-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { useLogin } from '../hooks/use-login';
import { AuthCard, textLinkClasses } from './auth-card';
import { SsoSignIn } from './sso-sign-in';

export function LoginPage() {
  useDocumentTitle('Sign in');
  const session = useSession();
  const { login, loading, error, challenge, verify, verifying, restart } = useLogin();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  // E.g. "Your password has been reset..." after a reset link was used.
  const notice = useRouteNotice();
  // Back to the page that sent the person here (an invitation link), else the dashboard.
  const returnTo = returnPathOf(useLocation());

  // Also how a successful submit reaches the dashboard: signing in re-renders this page signed in.
  if (session.isAuthenticated) return <Navigate to={returnTo} replace />;

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await login({ email, password });
  }

  // A session that could not be restored explains itself here, where the user lands after the redirect.
  const message = error ?? session.error;

  if (challenge) {
    return (
      <AuthCard
        title="Two-factor sign-in"
        subtitle="Enter the 6-digit code from your authenticator app, or one of your recovery codes."
        footer={
          <button
            type="button"
            className={textLinkClasses}
            onClick={() => {
              setCode('');
              restart();
            }}
          >
            Back to sign in
          </button>
        }
      >
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void verify(code);
          }}
          className="space-y-5"
        >
          {error ? <Alert>{error}</Alert> : null}
          <TextField
            label="Code"
            name="code"
            autoComplete="one-time-code"
            inputMode="text"
            maxLength={32}
            placeholder="123456"
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
          <Button type="submit" size="lg" fullWidth busy={verifying} busyLabel="Checking...">
            Verify
          </Button>
        </form>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Welcome back"
      subtitle="Log in to manage your chatbots."
      footer={
        <>
          Don&apos;t have an account?{' '}
          <Link to={withReturnTo('/register', returnTo)} className={textLinkClasses}>
            Sign up
          </Link>
        </>
      }
    >
      <form onSubmit={handleSubmit} className="space-y-5">
        {message ? <Alert tone={error ? 'error' : 'info'}>{message}</Alert> : null}
        {notice && !error ? <Alert tone="success">{notice}</Alert> : null}
        <TextField
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          placeholder="you@example.com"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          labelAction={
            <Link to="/forgot-password" className={`text-sm ${textLinkClasses}`}>
              Forgot password?
            </Link>
          }
        />
        <Button type="submit" size="lg" fullWidth busy={loading} busyLabel="Logging in...">
          Login
        </Button>
      </form>
      <div className="mt-5 border-t border-gray-100 pt-5">
        <SsoSignIn />
      </div>
    </AuthCard>
  );
}
