import { MIN_PASSWORD_LENGTH } from '../../lib/password-rules';
import { TextField } from './text-field';

// A new password and its confirmation (fields `password` and `password2`, as the product's forms name
// them), with the length hint: sign-up, password reset and the account page's password change.
export function NewPasswordFields(props: {
  password: string;
  password2: string;
  onPasswordChange: (value: string) => void;
  onPassword2Change: (value: string) => void;
  /** "Password" on sign-up; "New password" where one is replaced. */
  label?: string;
  confirmLabel?: string;
}) {
  return (
    <>
      <TextField
        label={props.label ?? 'New password'}
        name="password"
        type="password"
        autoComplete="new-password"
        hint={`At least ${MIN_PASSWORD_LENGTH} characters.`}
        value={props.password}
        onChange={(e) => props.onPasswordChange(e.target.value)}
      />
      <TextField
        label={props.confirmLabel ?? 'Confirm new password'}
        name="password2"
        type="password"
        autoComplete="new-password"
        value={props.password2}
        onChange={(e) => props.onPassword2Change(e.target.value)}
      />
    </>
  );
}
