import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/text-field';
import { formatDate } from '../../../lib/format';
import { useUpdateProfile } from '../hooks/use-update-profile';
import { AccountSection, FormOutcome } from './account-section';

export function ProfileCard({ name, createdAt }: { name: string; createdAt: string | null }) {
  const { updateProfile, saving, error, success } = useUpdateProfile();
  const [value, setValue] = useState(name);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const saved = await updateProfile(value);
    if (saved !== null) setValue(saved);
  }

  return (
    <AccountSection title="Profile" description={createdAt ? `Member since ${formatDate(createdAt)}` : 'How Parley addresses you.'}>
      <form onSubmit={handleSubmit} className="space-y-4">
        <FormOutcome error={error} success={success} />
        <TextField
          label="Name"
          name="name"
          autoComplete="name"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          hint='Shown on your dashboard. Left empty, Parley calls you "User".'
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
