import { useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { NewPasswordFields } from '../../../components/ui/new-password-fields';
import { TextField } from '../../../components/ui/text-field';
import { returnPathOf, withReturnTo } from '../../../lib/return-to';
import { useSession } from '../../../lib/session/session-context';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { useRegister } from '../hooks/use-register';
import { AuthCard, textLinkClasses } from './auth-card';

export function RegisterPage() {
  useDocumentTitle('Sign up');
  const session = useSession();
  const { register, loading, error } = useRegister();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [password2, setPassword2] = useState('');
  // Back to the page that sent the person here (an invitation link), else the dashboard.
  const returnTo = returnPathOf(useLocation());

  // Also how a successful submit reaches the dashboard: signing in re-renders this page signed in.
  if (session.isAuthenticated) return <Navigate to={returnTo} replace />;

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await register({ email, password, password2 });
  }

  return (
    <AuthCard
      title="Create an account"
      subtitle="Start building chatbots that answer from your knowledge."
      footer={
        <>
          Already have an account?{' '}
          <Link to={withReturnTo('/login', returnTo)} className={textLinkClasses}>
            Log in
          </Link>
        </>
      }
    >
      <form onSubmit={handleSubmit} className="space-y-5">
        {error ? <Alert>{error}</Alert> : null}
        <TextField
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          placeholder="you@example.com"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <NewPasswordFields
          label="Password"
          confirmLabel="Confirm password"
          password={password}
          password2={password2}
          onPasswordChange={setPassword}
          onPassword2Change={setPassword2}
        />
        <Button type="submit" size="lg" fullWidth busy={loading} busyLabel="Creating account...">
          Create account
        </Button>
      </form>
    </AuthCard>
  );
}
