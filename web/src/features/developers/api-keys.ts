import type { ApiKeyFieldsFragment, ApiKeyRollOverlap } from '../../gql/graphql';

// The Developers page's rules (docs/adr/0031-api-keys.md): what a key's state reads as, the overlaps a
// roll offers, the expiries a new key may get and the quick start's example call.

export type ApiKey = ApiKeyFieldsFragment;

/** The permission that lets a member see and manage the workspace's keys (owners and admins). */
export const MANAGE_API_KEYS = 'apikeys:manage';
/** The developer API's base path, on the dashboard's own origin. */
export const API_BASE_PATH = '/api/v1';
export const API_REFERENCE_PATH = '/developers/api';

export type KeyState = 'active' | 'rolling' | 'expired' | 'revoked';

/** Revoked wins over expired; a key whose replaced secret still works is rolling. */
export function keyState(key: Pick<ApiKey, 'revokedAt' | 'expiresAt' | 'previousSecretExpiresAt'>, now: Date): KeyState {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && new Date(key.expiresAt) <= now) return 'expired';
  if (key.previousSecretExpiresAt && new Date(key.previousSecretExpiresAt) > now) return 'rolling';
  return 'active';
}

export const KEY_STATE_LABELS: Record<KeyState, string> = {
  active: 'Active',
  rolling: 'Rolling',
  expired: 'Expired',
  revoked: 'Revoked',
};

/** What the list shows of a secret: its prefix, an ellipsis and its last four characters. */
export const maskedSecret = (key: Pick<ApiKey, 'prefix' | 'lastFour'>) => `${key.prefix}…${key.lastFour}`;

export const ROLL_OVERLAP_OPTIONS: ReadonlyArray<{ value: ApiKeyRollOverlap; label: string; hint: string }> = [
  { value: 'NONE', label: 'No overlap', hint: 'The current secret stops working at once (for a leaked key).' },
  { value: 'ONE_HOUR', label: '1 hour', hint: 'The current secret keeps working for one more hour.' },
  { value: 'ONE_DAY', label: '24 hours', hint: 'The current secret keeps working for one more day.' },
  { value: 'SEVEN_DAYS', label: '7 days', hint: 'The current secret keeps working for seven more days.' },
];

export const EXPIRY_OPTIONS = [
  { value: 'never', label: 'Never' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In 1 year' },
] as const;
export type ExpiryChoice = (typeof EXPIRY_OPTIONS)[number]['value'];

/** The expiry a choice gives a key created at `now`; null for one that never expires. */
export function expiryDate(choice: ExpiryChoice, now: Date): string | null {
  if (choice === 'never') return null;
  return new Date(now.getTime() + Number(choice) * 86_400_000).toISOString();
}

/** The quick start's first call: list the workspace's chatbots with a key. */
export function curlExample(origin: string, secret = '$PARLEY_API_KEY'): string {
  return `curl ${origin}${API_BASE_PATH}/chatbots \\\n  -H "Authorization: Bearer ${secret}"`;
}

export const NAME_REQUIRED = 'Give the key a name.';
export const SCOPE_REQUIRED = 'Choose at least one scope.';
export const CHATBOT_REQUIRED = 'Choose at least one chatbot, or allow all of them.';

export interface KeyDraft {
  name: string;
  scopes: string[];
  /** null: every chatbot of the workspace. */
  chatbotIds: string[] | null;
  expiry: ExpiryChoice;
}

/** The first thing wrong with a draft, in the form's order, or null. */
export function draftProblem(draft: KeyDraft): string | null {
  if (!draft.name.trim()) return NAME_REQUIRED;
  if (draft.scopes.length === 0) return SCOPE_REQUIRED;
  if (draft.chatbotIds !== null && draft.chatbotIds.length === 0) return CHATBOT_REQUIRED;
  return null;
}
