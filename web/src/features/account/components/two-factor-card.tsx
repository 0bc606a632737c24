import { useState, type FormEvent } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Spinner } from '../../../components/ui/spinner';
import { TextField } from '../../../components/ui/text-field';
import { useDisableTwoFactor } from '../hooks/use-disable-two-factor';
import { useRegenerateRecoveryCodes } from '../hooks/use-regenerate-recovery-codes';
import { useMyTwoFactor } from '../hooks/use-my-two-factor';
import { useTwoFactorEnrolment } from '../hooks/use-two-factor-enrolment';
import { AccountSection, FormOutcome } from './account-section';
import { RecoveryCodesPanel } from './recovery-codes-panel';
import { TwoFactorQrCode } from './two-factor-qr-code';

export const TWO_FACTOR_CARD_TITLE = 'Two-factor sign-in';

/**
 * Two-factor sign-in (docs/product.md): set up with an authenticator app (QR code or key, then a
 * code), the recovery codes shown once; when on, new recovery codes or turning it off, each confirmed
 * with the password and a code.
 */
export function TwoFactorCard() {
  const { status, loading, error } = useMyTwoFactor();
  // Codes just made, shown until the user says they saved them.
  const [shownCodes, setShownCodes] = useState<string[] | null>(null);

  return (
    <AccountSection
      title={TWO_FACTOR_CARD_TITLE}
      description="A code from an authenticator app on your phone, asked for after your password."
      action={status ? <Badge tone={status.enabled ? 'success' : 'neutral'}>{status.enabled ? 'On' : 'Off'}</Badge> : null}
    >
      {loading ? (
        <div className="flex justify-center py-6 text-brand-600">
          <Spinner className="size-6" label="Loading two-factor sign-in" />
        </div>
      ) : shownCodes ? (
        <RecoveryCodesPanel codes={shownCodes} onDone={() => setShownCodes(null)} />
      ) : status?.enabled ? (
        <TwoFactorOn recoveryCodesLeft={status.recoveryCodesLeft} onNewCodes={setShownCodes} />
      ) : status ? (
        <TwoFactorSetUp onEnabled={setShownCodes} />
      ) : (
        <FormOutcome error={error} />
      )}
    </AccountSection>
  );
}

function TwoFactorSetUp({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const { enrolment, start, starting, confirm, confirming, cancel, error } = useTwoFactorEnrolment();
  const [code, setCode] = useState('');

  async function handleConfirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const codes = await confirm(code);
    if (codes) {
      setCode('');
      onEnabled(codes);
    }
  }

  if (!enrolment) {
    return (
      <div className="space-y-4">
        <FormOutcome error={error} />
        <p className="text-sm text-gray-600">Protect your account even if someone learns your password.</p>
        <div className="flex justify-end">
          <Button onClick={() => void start()} busy={starting} busyLabel="Starting...">
            Set up two-factor sign-in
          </Button>
        </div>
      </div>
    );
  }
  return (
    <form onSubmit={handleConfirm} className="space-y-4">
      <FormOutcome error={error} />
      <p className="text-sm text-gray-600">
        Scan this QR code with an authenticator app (Google Authenticator, 1Password, Authy…), or type the key in by hand.
      </p>
      <div className="flex flex-col items-center gap-3 sm:flex-row sm:items-start">
        <TwoFactorQrCode uri={enrolment.otpauthUri} />
        <div className="min-w-0 text-sm">
          <p className="font-medium text-gray-900">Key</p>
          <code aria-label="Key" className="mt-1 block font-mono break-all text-gray-700">
            {enrolment.secret.replace(/(.{4})/g, '$1 ').trim()}
          </code>
        </div>
      </div>
      <TextField
        label="Code from the app"
        name="code"
        autoComplete="one-time-code"
        inputMode="numeric"
        maxLength={6}
        value={code}
        onChange={(e) => setCode(e.target.value)}
      />
      <div className="flex justify-end gap-2">
        <Button type="button" variant="secondary" onClick={cancel}>
          Cancel
        </Button>
        <Button type="submit" busy={confirming} busyLabel="Turning on...">
          Turn on
        </Button>
      </div>
    </form>
  );
}

function TwoFactorOn({ recoveryCodesLeft, onNewCodes }: { recoveryCodesLeft: number; onNewCodes: (codes: string[]) => void }) {
  const { disable, disabling, error: disableError, success } = useDisableTwoFactor();
  const { regenerate, regenerating, error: regenerateError } = useRegenerateRecoveryCodes();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');

  const clear = () => {
    setPassword('');
    setCode('');
  };

  return (
    <form onSubmit={(event) => event.preventDefault()} className="space-y-4">
      <FormOutcome error={disableError ?? regenerateError} success={success} />
      <p className="text-sm text-gray-600">
        {recoveryCodesLeft === 1 ? '1 recovery code left.' : `${recoveryCodesLeft} recovery codes left.`} To make new ones or turn
        two-factor sign-in off, confirm with your password and a code.
      </p>
      <TextField
        label="Password"
        name="twoFactorPassword"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <TextField
        label="Code or recovery code"
        name="twoFactorCode"
        autoComplete="one-time-code"
        maxLength={32}
        value={code}
        onChange={(e) => setCode(e.target.value)}
      />
      <div className="flex flex-wrap justify-end gap-2">
        <Button
          variant="secondary"
          busy={regenerating}
          busyLabel="Making codes..."
          onClick={async () => {
            const codes = await regenerate({ password, code });
            if (codes) {
              clear();
              onNewCodes(codes);
            }
          }}
        >
          New recovery codes
        </Button>
        <Button
          variant="danger"
          busy={disabling}
          busyLabel="Turning off..."
          onClick={async () => {
            if (await disable({ password, code })) clear();
          }}
        >
          Turn off
        </Button>
      </div>
    </form>
  );
}
