import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { formatDate, formatDateTime } from '../../../lib/format';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { KEY_STATE_LABELS, keyState, maskedSecret, type ApiKey, type KeyState } from '../api-keys';

const stateTone: Record<KeyState, 'success' | 'brand' | 'neutral'> = {
  active: 'success',
  rolling: 'brand',
  expired: 'neutral',
  revoked: 'neutral',
};

function Detail({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-gray-500">{term}</dt>
      <dd className="truncate text-sm text-gray-800" title={typeof children === 'string' ? children : undefined}>
        {children}
      </dd>
    </div>
  );
}

interface ApiKeysListProps {
  keys: ApiKey[];
  onRoll: (key: ApiKey) => void;
  onRevoke: (key: ApiKey) => void;
}

/** The workspace's keys, newest first: what each may do, who made it, when it was last used; never a secret. */
export function ApiKeysList({ keys, onRoll, onRevoke }: ApiKeysListProps) {
  const { chatbots } = useChatbots();
  const now = new Date();
  const chatbotNames = (ids: string[]) =>
    ids.length === 0 ? 'All chatbots' : ids.map((id) => chatbots.find((c) => c.id === id)?.name ?? 'A deleted chatbot').join(', ');

  return (
    <ul aria-label="API keys" className="divide-y divide-gray-100">
      {keys.map((key) => {
        const state = keyState(key, now);
        const usable = state === 'active' || state === 'rolling';
        return (
          <li key={key.id} className="py-4 first:pt-0 last:pb-0">
            <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
              <div className="min-w-0">
                <div className="flex flex-wrap items-center gap-2">
                  <h3 className="text-sm font-semibold break-words text-gray-900">{key.name}</h3>
                  <Badge tone={stateTone[state]}>{KEY_STATE_LABELS[state]}</Badge>
                </div>
                <p className="mt-1 font-mono text-xs text-gray-600">{maskedSecret(key)}</p>
              </div>
              {usable ? (
                <div className="flex shrink-0 gap-2">
                  <Button variant="secondary" size="sm" onClick={() => onRoll(key)} aria-label={`Roll ${key.name}`}>
                    Roll
                  </Button>
                  <Button
                    variant="ghost"
                    size="sm"
                    className="text-red-700 hover:bg-red-50"
                    onClick={() => onRevoke(key)}
                    aria-label={`Revoke ${key.name}`}
                  >
                    Revoke
                  </Button>
                </div>
              ) : null}
            </div>
            <div className="mt-2 flex flex-wrap gap-1">
              {key.scopes.map((scope) => (
                <span key={scope} className="rounded bg-gray-100 px-1.5 py-0.5 font-mono text-xs text-gray-700">
                  {scope}
                </span>
              ))}
            </div>
            <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 sm:grid-cols-3">
              <Detail term="Chatbots">{chatbotNames(key.chatbotIds)}</Detail>
              <Detail term="Created">{formatDate(key.createdAt)}</Detail>
              <Detail term="Created by">{key.createdByEmail}</Detail>
              <Detail term="Expires">{key.expiresAt ? formatDate(key.expiresAt) : 'Never'}</Detail>
              <Detail term="Last used">{formatDateTime(key.lastUsedAt, 'Never')}</Detail>
              {key.revokedAt ? (
                <Detail term="Revoked">{formatDateTime(key.revokedAt)}</Detail>
              ) : key.previousSecretExpiresAt && state === 'rolling' ? (
                <Detail term="Old secret works until">{formatDateTime(key.previousSecretExpiresAt)}</Detail>
              ) : null}
            </dl>
          </li>
        );
      })}
    </ul>
  );
}
