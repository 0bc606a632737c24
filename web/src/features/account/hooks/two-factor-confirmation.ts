export const TWO_FACTOR_CONFIRMATION_REQUIRED_MESSAGE =
  'Please enter your password and a code from your authenticator app or a recovery code.';

/** What turning two-factor sign-in off and new recovery codes are confirmed with. */
export interface TwoFactorConfirmation {
  password: string;
  code: string;
}

export const confirmationMissing = ({ password, code }: TwoFactorConfirmation) => !password || !code.trim();
