import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { useDeleteAccount } from '../hooks/use-delete-account';
import { AccountSection, FormOutcome } from './account-section';
import { WarningIcon } from './account-icons';

/** The danger zone: what deleting removes and keeps, confirmed with the password. */
export function DeleteAccountCard() {
  const { deleteAccount, deleting, error } = useDeleteAccount();
  const [password, setPassword] = useState('');

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    await deleteAccount(password);
  }

  return (
    <AccountSection title="Delete account" tone="danger" description="Permanently close your Parley account.">
      <div className="grid gap-6 md:grid-cols-2">
        <div className="flex gap-3 rounded-xl bg-red-50 p-4 text-sm leading-6 text-red-900 ring-1 ring-red-100 ring-inset">
          <span className="mt-0.5 shrink-0 text-red-600">
            <WarningIcon />
          </span>
          <div className="space-y-2">
            <p>
              Deleting your account removes your chatbots, their knowledge and pictures, their conversations, and your personal data. Your
              subscription is cancelled. This cannot be undone.
            </p>
            <p className="text-red-800">
              Usage and payment records are kept only as anonymised accounting records where the law requires it, as the{' '}
              <Link to="/privacy" className="rounded-sm font-medium underline underline-offset-2 hover:text-red-950">
                Privacy Policy
              </Link>{' '}
              explains. Download your data first if you want a copy.
            </p>
          </div>
        </div>
        <form onSubmit={handleSubmit} className="space-y-4">
          <FormOutcome error={error} />
          <TextField
            label="Password"
            name="deletePassword"
            type="password"
            autoComplete="current-password"
            hint="Enter your password to confirm it is you."
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <div className="flex justify-end">
            <Button type="submit" variant="danger" busy={deleting} busyLabel="Deleting...">
              Delete my account
            </Button>
          </div>
        </form>
      </div>
    </AccountSection>
  );
}
