import { useMutation } from '@apollo/client/react';
import { useSession } from '../../../lib/session/session-context';
import { UpdateProfileMutation } from '../graphql/update-profile-mutation';
import { useFormOutcome } from './use-form-outcome';

export const PROFILE_UPDATED_MESSAGE = 'Profile updated';
export const PROFILE_FAILED_MESSAGE = 'Could not update your profile. Please try again.';

/** Saves the display name (empty is allowed: the product then says "User") and shows it everywhere. */
export function useUpdateProfile() {
  const { updateUser } = useSession();
  const [mutate, { loading }] = useMutation(UpdateProfileMutation);
  const outcome = useFormOutcome();

  /** Resolves to the saved name, or null when the form shows an error. */
  async function updateProfile(name: string): Promise<string | null> {
    outcome.start();
    try {
      const { data } = await mutate({ variables: { name: name.trim() } });
      if (!data) throw new Error('empty updateProfile response');
      updateUser(data.updateProfile);
      outcome.succeed(PROFILE_UPDATED_MESSAGE);
      return data.updateProfile.name;
    } catch (failure) {
      outcome.fail(failure, PROFILE_FAILED_MESSAGE);
      return null;
    }
  }

  return { updateProfile, saving: loading, error: outcome.error, success: outcome.success };
}
