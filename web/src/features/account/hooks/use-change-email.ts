import { useMutation } from '@apollo/client/react';
import { REQUIRED_FIELDS_MESSAGE } from '../../../lib/password-rules';
import { useSession } from '../../../lib/session/session-context';
import { ChangeEmailMutation } from '../graphql/change-email-mutation';
import { useFormOutcome } from './use-form-outcome';

export const EMAIL_UPDATED_MESSAGE = 'Email updated';
export const EMAIL_FAILED_MESSAGE = 'Could not change your email. Please try again.';

export interface ChangeEmailValues {
  email: string;
  currentPassword: string;
}

/** Changes the sign-in email, confirmed with the current password, and shows it everywhere. */
export function useChangeEmail() {
  const { updateUser } = useSession();
  const [mutate, { loading }] = useMutation(ChangeEmailMutation);
  const outcome = useFormOutcome();

  /** Resolves to true when the email was changed (the form then empties itself). */
  async function changeEmail({ email, currentPassword }: ChangeEmailValues): Promise<boolean> {
    outcome.start();
    if (!email.trim() || !currentPassword) {
      outcome.fail(REQUIRED_FIELDS_MESSAGE, EMAIL_FAILED_MESSAGE);
      return false;
    }
    try {
      const { data } = await mutate({ variables: { input: { email: email.trim(), currentPassword } } });
      if (!data) throw new Error('empty changeEmail response');
      updateUser(data.changeEmail);
      outcome.succeed(EMAIL_UPDATED_MESSAGE);
      return true;
    } catch (failure) {
      outcome.fail(failure, EMAIL_FAILED_MESSAGE);
      return false;
    }
  }

  return { changeEmail, saving: loading, error: outcome.error, success: outcome.success };
}
