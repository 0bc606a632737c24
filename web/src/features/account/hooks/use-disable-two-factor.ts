import { useMutation } from '@apollo/client/react';
import { useSession } from '../../../lib/session/session-context';
import { DisableTwoFactorMutation } from '../graphql/disable-two-factor-mutation';
import { MyTwoFactorQuery } from '../graphql/my-two-factor-query';
import { confirmationMissing, TWO_FACTOR_CONFIRMATION_REQUIRED_MESSAGE, type TwoFactorConfirmation } from './two-factor-confirmation';
import { useFormOutcome } from './use-form-outcome';

export const DISABLE_FAILED_MESSAGE = 'Could not turn off two-factor sign-in. Please try again.';
export const DISABLED_MESSAGE = 'Two-factor sign-in is off.';

/** Turning two-factor sign-in off, confirmed with the password and a code. */
export function useDisableTwoFactor() {
  const session = useSession();
  const [mutate, { loading }] = useMutation(DisableTwoFactorMutation, { refetchQueries: [MyTwoFactorQuery] });
  const outcome = useFormOutcome();

  async function disable(values: TwoFactorConfirmation): Promise<boolean> {
    outcome.start();
    if (confirmationMissing(values)) {
      outcome.fail(TWO_FACTOR_CONFIRMATION_REQUIRED_MESSAGE, DISABLE_FAILED_MESSAGE);
      return false;
    }
    try {
      await mutate({ variables: { input: { password: values.password, code: values.code.trim() } } });
      await session.refreshUser();
      outcome.succeed(DISABLED_MESSAGE);
      return true;
    } catch (failure) {
      outcome.fail(failure, DISABLE_FAILED_MESSAGE);
      return false;
    }
  }

  return { disable, disabling: loading, error: outcome.error, success: outcome.success };
}
