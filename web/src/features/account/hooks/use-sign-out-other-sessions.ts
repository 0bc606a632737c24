import { useMutation } from '@apollo/client/react';
import { MySessionsQuery } from '../graphql/my-sessions-query';
import { SignOutOtherSessionsMutation } from '../graphql/sign-out-other-sessions-mutation';
import { useFormOutcome } from './use-form-outcome';

export const SIGN_OUT_OTHERS_FAILED_MESSAGE = 'Could not sign out your other devices. Please try again.';

export function signedOutMessage(count: number): string {
  return `Signed out of ${count} other ${count === 1 ? 'device' : 'devices'}`;
}

/** Ends every session but this one, then asks for the device list again. */
export function useSignOutOtherSessions() {
  const [mutate, { loading }] = useMutation(SignOutOtherSessionsMutation, { refetchQueries: [MySessionsQuery] });
  const outcome = useFormOutcome();

  async function signOutOthers(): Promise<void> {
    outcome.start();
    try {
      const { data } = await mutate();
      if (!data) throw new Error('empty signOutOtherSessions response');
      outcome.succeed(signedOutMessage(data.signOutOtherSessions));
    } catch (failure) {
      outcome.fail(failure, SIGN_OUT_OTHERS_FAILED_MESSAGE);
    }
  }

  return { signOutOthers, signingOut: loading, error: outcome.error, success: outcome.success };
}
