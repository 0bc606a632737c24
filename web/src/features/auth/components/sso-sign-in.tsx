import { useState, type FormEvent } from 'react';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { SsoStartError, SSO_START_FAILED_MESSAGE, ssoRedirectUrl } from '../api/sso-api';

/** "Sign in with SSO": the work email first, then the browser goes to the workspace's identity provider. */
export function SsoSignIn() {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!email.trim()) {
      setError('Please enter your work email');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      window.location.assign(await ssoRedirectUrl(email.trim()));
    } catch (failure) {
      setError(failure instanceof SsoStartError ? failure.message : SSO_START_FAILED_MESSAGE);
      setBusy(false);
    }
  }

  if (!open) {
    return (
      <Button type="button" variant="secondary" size="lg" fullWidth onClick={() => setOpen(true)}>
        Sign in with SSO
      </Button>
    );
  }
  return (
    <form onSubmit={submit} className="space-y-4" aria-label="Sign in with SSO">
      {error ? <Alert>{error}</Alert> : null}
      <TextField
        label="Work email"
        name="ssoEmail"
        type="email"
        autoComplete="email"
        placeholder="you@company.com"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <Button type="submit" variant="secondary" size="lg" fullWidth busy={busy} busyLabel="Redirecting...">
        Continue with SSO
      </Button>
    </form>
  );
}
