import { useMutation } from '@apollo/client/react';
import { useSession } from '../../../lib/session/session-context';
import { DisableTwoFactorMutation } from '../graphql/disable-two-factor-mutation';
import { MyTwoFactorQuery } from '../graphql/my-two-factor-query';
import { RegenerateRecoveryCodesMutation } from '../graphql/regenerate-recovery-codes-mutation';
import { useFormOutcome } from './use-form-outcome';

export const TWO_FACTOR_CONFIRMATION_REQUIRED_MESSAGE =
  'Please enter your password and a code from your authenticator app or a recovery code.';
export const DISABLE_FAILED_MESSAGE = 'Could not turn off two-factor sign-in. Please try again.';
export const REGENERATE_FAILED_MESSAGE = 'Could not make new recovery codes. Please try again.';
export const DISABLED_MESSAGE = 'Two-factor sign-in is off.';

export interface TwoFactorConfirmation {
  password: string;
  code: string;
}

const missing = ({ password, code }: TwoFactorConfirmation) => !password || !code.trim();

/** Turning two-factor sign-in off, confirmed with the password and a code. */
export function useDisableTwoFactor() {
  const session = useSession();
  const [mutate, { loading }] = useMutation(DisableTwoFactorMutation, { refetchQueries: [MyTwoFactorQuery] });
  const outcome = useFormOutcome();

  async function disable(values: TwoFactorConfirmation): Promise<boolean> {
    outcome.start();
    if (missing(values)) {
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

/** Ten new recovery codes in place of the old ones, confirmed with the password and a code. */
export function useRegenerateRecoveryCodes() {
  const [mutate, { loading }] = useMutation(RegenerateRecoveryCodesMutation, { refetchQueries: [MyTwoFactorQuery] });
  const outcome = useFormOutcome();

  async function regenerate(values: TwoFactorConfirmation): Promise<string[] | null> {
    outcome.start();
    if (missing(values)) {
      outcome.fail(TWO_FACTOR_CONFIRMATION_REQUIRED_MESSAGE, REGENERATE_FAILED_MESSAGE);
      return null;
    }
    try {
      const { data } = await mutate({ variables: { input: { password: values.password, code: values.code.trim() } } });
      if (!data) throw new Error('empty regenerateRecoveryCodes response');
      return data.regenerateRecoveryCodes;
    } catch (failure) {
      outcome.fail(failure, REGENERATE_FAILED_MESSAGE);
      return null;
    }
  }

  return { regenerate, regenerating: loading, error: outcome.error };
}
