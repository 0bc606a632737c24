import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Spinner } from '../../../components/ui/spinner';
import { formatDate, formatDateTime } from '../../../lib/format';
import { useMySessions } from '../hooks/use-my-sessions';
import { useSignOutOtherSessions } from '../hooks/use-sign-out-other-sessions';
import { AccountSection, FormOutcome } from './account-section';
import { DeviceIcon } from './account-icons';

/** Where the account is signed in, and a way to end every session but this one. */
export function DevicesCard() {
  const { sessions, loading, error: loadError } = useMySessions();
  const { signOutOthers, signingOut, error, success } = useSignOutOtherSessions();
  const others = sessions?.filter((session) => !session.current).length ?? 0;

  return (
    <AccountSection title="Devices" description="Where your account is signed in.">
      <div className="space-y-4">
        <FormOutcome error={error ?? loadError} success={success} />
        {loading ? (
          <div className="flex justify-center py-6 text-brand-600">
            <Spinner className="size-6" label="Loading devices" />
          </div>
        ) : null}
        {sessions ? (
          <ul aria-label="Signed-in devices" className="divide-y divide-gray-100 rounded-xl border border-gray-200">
            {sessions.map((session) => (
              <li key={session.id} className="flex items-start gap-3 px-4 py-3">
                <span className="mt-0.5 text-gray-400">
                  <DeviceIcon />
                </span>
                <div className="min-w-0 flex-1">
                  <p className="text-sm font-medium text-gray-900">Signed in {formatDateTime(session.createdAt)}</p>
                  <p className="mt-0.5 text-xs break-words text-gray-500">
                    IP address {session.clientIp ?? 'unknown'} · Expires {formatDate(session.expiresAt)}
                  </p>
                </div>
                {session.current ? <Badge tone="brand">This device</Badge> : null}
              </li>
            ))}
          </ul>
        ) : null}
        {sessions ? (
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
            <p className="text-xs text-gray-500">
              {others === 0 ? 'No other devices are signed in.' : 'Lost a device, or signed in somewhere public?'}
            </p>
            <Button
              variant="secondary"
              onClick={() => void signOutOthers()}
              busy={signingOut}
              busyLabel="Signing out..."
              disabled={others === 0}
            >
              Sign out of all other devices
            </Button>
          </div>
        ) : null}
      </div>
    </AccountSection>
  );
}
