import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { useRequestPasswordReset } from '../hooks/use-request-password-reset';
import { AuthCard, textLinkClasses } from './auth-card';

// The answer is the same for every email, so this page reveals nothing about who has an account.
// The form stays after sending, so a mistyped address can be corrected and sent again.
export function ForgotPasswordPage() {
  useDocumentTitle('Forgot password');
  const { requestReset, loading, sent, error } = useRequestPasswordReset();
  const [email, setEmail] = useState('');

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await requestReset(email);
  }

  return (
    <AuthCard
      title="Reset your password"
      subtitle="Enter your account's email and we'll send you a link to choose a new password."
      footer={
        <>
          Remembered it?{' '}
          <Link to="/login" className={textLinkClasses}>
            Back to login
          </Link>
        </>
      }
    >
      <form onSubmit={handleSubmit} className="space-y-5">
        {error ? <Alert>{error}</Alert> : null}
        {sent ? (
          <Alert tone="success">
            <p className="font-medium">{sent}</p>
            <p className="mt-1 text-green-700">Check your inbox and spam folder. The link works once and expires soon.</p>
          </Alert>
        ) : null}
        <TextField
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          placeholder="you@example.com"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <Button type="submit" size="lg" fullWidth busy={loading} busyLabel="Sending...">
          Send reset link
        </Button>
      </form>
    </AuthCard>
  );
}
