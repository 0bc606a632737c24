import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { useChangeEmail } from '../hooks/use-change-email';
import { AccountSection, FormOutcome } from './account-section';

export function EmailCard({ email }: { email: string }) {
  const { changeEmail, saving, error, success } = useChangeEmail();
  const [newEmail, setNewEmail] = useState('');
  const [currentPassword, setCurrentPassword] = useState('');

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (await changeEmail({ email: newEmail, currentPassword })) {
      setNewEmail('');
      setCurrentPassword('');
    }
  }

  return (
    <AccountSection title="Email" description="You sign in with it, and reset links are sent to it.">
      <form onSubmit={handleSubmit} className="space-y-4">
        <FormOutcome error={error} success={success} />
        <div className="rounded-lg bg-gray-50 px-3.5 py-2.5 text-sm">
          <span className="text-gray-500">Current email</span>
          <p className="mt-0.5 font-medium break-words text-gray-900">{email}</p>
        </div>
        <TextField
          label="New email"
          name="email"
          type="email"
          autoComplete="email"
          placeholder="you@example.com"
          value={newEmail}
          onChange={(e) => setNewEmail(e.target.value)}
        />
        <TextField
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          value={currentPassword}
          onChange={(e) => setCurrentPassword(e.target.value)}
        />
        <div className="flex justify-end">
          <Button type="submit" busy={saving} busyLabel="Saving...">
            Save
          </Button>
        </div>
      </form>
    </AccountSection>
  );
}
