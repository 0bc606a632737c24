import { useMutation } from '@apollo/client/react';
import { REQUIRED_FIELDS_MESSAGE, validateNewPassword, type NewPasswordValues } from '../../../lib/password-rules';
import { ChangePasswordMutation } from '../graphql/change-password-mutation';
import { MySessionsQuery } from '../graphql/my-sessions-query';
import { useFormOutcome } from './use-form-outcome';

export const PASSWORD_FAILED_MESSAGE = 'Could not change your password. Please try again.';

/**
 * Says the password changed and, when there were any, how many other devices were signed out: the
 * same sentence as the gateway's REST answer (gateway/src/rest/account.ts).
 */
export function passwordChangedMessage(signedOut: number): string {
  if (signedOut <= 0) return 'Password changed.';
  return `Password changed. ${signedOut} other ${signedOut === 1 ? 'device was' : 'devices were'} signed out.`;
}

export interface ChangePasswordValues extends NewPasswordValues {
  currentPassword: string;
}

/**
 * Changes the password, confirmed with the current one, with the same rules as registration. The
 * server signs out every other session, so the device list is asked for again.
 */
export function useChangePassword() {
  const [mutate, { loading }] = useMutation(ChangePasswordMutation, { refetchQueries: [MySessionsQuery] });
  const outcome = useFormOutcome();

  /** Resolves to true when the password was changed (the form then empties itself). */
  async function changePassword({ currentPassword, ...newPassword }: ChangePasswordValues): Promise<boolean> {
    outcome.start();
    const invalid = currentPassword ? validateNewPassword(newPassword) : REQUIRED_FIELDS_MESSAGE;
    if (invalid) {
      outcome.fail(invalid, PASSWORD_FAILED_MESSAGE);
      return false;
    }
    try {
      const { data } = await mutate({ variables: { input: { currentPassword, ...newPassword } } });
      if (!data) throw new Error('empty changePassword response');
      outcome.succeed(passwordChangedMessage(data.changePassword));
      return true;
    } catch (failure) {
      outcome.fail(failure, PASSWORD_FAILED_MESSAGE);
      return false;
    }
  }

  return { changePassword, saving: loading, error: outcome.error, success: outcome.success };
}
