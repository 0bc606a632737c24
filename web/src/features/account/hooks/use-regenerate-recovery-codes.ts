import { useMutation } from '@apollo/client/react';
import { MyTwoFactorQuery } from '../graphql/my-two-factor-query';
import { RegenerateRecoveryCodesMutation } from '../graphql/regenerate-recovery-codes-mutation';
import { confirmationMissing, TWO_FACTOR_CONFIRMATION_REQUIRED_MESSAGE, type TwoFactorConfirmation } from './two-factor-confirmation';
import { useFormOutcome } from './use-form-outcome';

export const REGENERATE_FAILED_MESSAGE = 'Could not make new recovery codes. Please try again.';

/** Ten new recovery codes in place of the old ones, confirmed with the password and a code. */
export function useRegenerateRecoveryCodes() {
  const [mutate, { loading }] = useMutation(RegenerateRecoveryCodesMutation, { refetchQueries: [MyTwoFactorQuery] });
  const outcome = useFormOutcome();

  async function regenerate(values: TwoFactorConfirmation): Promise<string[] | null> {
    outcome.start();
    if (confirmationMissing(values)) {
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
