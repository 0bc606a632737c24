import { useMutation } from '@apollo/client/react';
import { useState } from 'react';
import { useSession } from '../../../lib/session/session-context';
import { ConfirmTwoFactorEnrolmentMutation } from '../graphql/confirm-two-factor-enrolment-mutation';
import { MyTwoFactorQuery } from '../graphql/my-two-factor-query';
import { StartTwoFactorEnrolmentMutation } from '../graphql/start-two-factor-enrolment-mutation';
import { useFormOutcome } from './use-form-outcome';

export const ENROLMENT_FAILED_MESSAGE = 'Could not set up two-factor sign-in. Please try again.';
export const ENROLMENT_CODE_REQUIRED_MESSAGE = 'Please enter the 6-digit code your authenticator app shows.';

export interface Enrolment {
  otpauthUri: string;
  secret: string;
}

/**
 * Setting up two-factor sign-in: `start` asks for a new secret (shown as a QR code and a key), `confirm`
 * turns it on with a current code and answers the recovery codes, shown once. The session's user is
 * asked for again, so the dashboard's guard sees it on.
 */
export function useTwoFactorEnrolment() {
  const session = useSession();
  const [startMutation, { loading: starting }] = useMutation(StartTwoFactorEnrolmentMutation);
  const [confirmMutation, { loading: confirming }] = useMutation(ConfirmTwoFactorEnrolmentMutation, {
    refetchQueries: [MyTwoFactorQuery],
  });
  const outcome = useFormOutcome();
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);

  async function start(): Promise<void> {
    outcome.start();
    try {
      const { data } = await startMutation();
      if (!data) throw new Error('empty startTwoFactorEnrolment response');
      setEnrolment(data.startTwoFactorEnrolment);
    } catch (failure) {
      outcome.fail(failure, ENROLMENT_FAILED_MESSAGE);
    }
  }

  /** Resolves to the recovery codes once it is on, else null (the error says why). */
  async function confirm(code: string): Promise<string[] | null> {
    outcome.start();
    if (!code.trim()) {
      outcome.fail(ENROLMENT_CODE_REQUIRED_MESSAGE, ENROLMENT_FAILED_MESSAGE);
      return null;
    }
    try {
      const { data } = await confirmMutation({ variables: { code: code.trim() } });
      if (!data) throw new Error('empty confirmTwoFactorEnrolment response');
      setEnrolment(null);
      await session.refreshUser();
      return data.confirmTwoFactorEnrolment;
    } catch (failure) {
      outcome.fail(failure, ENROLMENT_FAILED_MESSAGE);
      return null;
    }
  }

  function cancel() {
    setEnrolment(null);
    outcome.start();
  }

  return { enrolment, start, starting, confirm, confirming, cancel, error: outcome.error };
}
