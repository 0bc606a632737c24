import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { NewPasswordFields } from '../../../components/ui/new-password-fields';
import { TextField } from '../../../components/ui/text-field';
import { useChangePassword } from '../hooks/use-change-password';
import { AccountSection, FormOutcome } from './account-section';

export function PasswordCard() {
  const { changePassword, saving, error, success } = useChangePassword();
  const [currentPassword, setCurrentPassword] = useState('');
  const [password, setPassword] = useState('');
  const [password2, setPassword2] = useState('');

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (await changePassword({ currentPassword, password, password2 })) {
      setCurrentPassword('');
      setPassword('');
      setPassword2('');
    }
  }

  return (
    <AccountSection title="Password" description="Changing it signs out your other devices.">
      <form onSubmit={handleSubmit} className="space-y-4">
        <FormOutcome error={error} success={success} />
        <TextField
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          value={currentPassword}
          onChange={(e) => setCurrentPassword(e.target.value)}
        />
        <NewPasswordFields password={password} password2={password2} onPasswordChange={setPassword} onPassword2Change={setPassword2} />
        <div className="flex justify-end">
          <Button type="submit" busy={saving} busyLabel="Saving...">
            Change password
          </Button>
        </div>
      </form>
    </AccountSection>
  );
}
