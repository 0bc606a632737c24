// Action calls waiting for the visitor's Confirm (docs/adr/0054-action-confirmation.md). When the
// model calls an action whose "visitor must confirm" is on, nothing runs: the call is stored here
// with its inputs fixed at that moment, bound to the chatbot and the conversation, under a random id
// that expires, and the turn ends with a confirmation card. The visitor's Confirm or Cancel names the
// id; the decision is set once (SET NX), so a Confirm cannot be turned into a Cancel or back, and a
// repeated Confirm (a retry, a double click) runs nothing more: the run's call key is the id, which
// the chatbot service's log holds once. An id that is unknown, expired, or of another conversation
// is refused before anything is read or held. The model asking again for the same call in the same
// conversation is shown the same card, not a new one.
import { createHash, randomUUID } from 'node:crypto';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { withRedisDeadline, type Redis } from '@parley/common/redis.ts';
import { invalid } from '@parley/common/rpc-errors.ts';

/** How long a card can be confirmed. */
export const PENDING_TTL_SECONDS = 15 * 60;
export const CONFIRMATION_INVALID = 'This confirmation is no longer valid: ask again';

export type Decision = 'confirm' | 'cancel';

export interface PendingCall {
  id: string;
  chatbotId: string;
  sessionId: string;
  actionName: string;
  /** The model's arguments as they were when it asked; the Confirm runs these, never new ones. */
  arguments: Record<string, unknown>;
  /** What the card asks ("Cancel order 1042?"). */
  question: string;
  expiresAt: string;
}

export interface PendingActions {
  /** The conversation's pending call for this action and these inputs: the open one, else a new one. */
  open(call: Omit<PendingCall, 'id' | 'expiresAt'>): Promise<PendingCall>;
  /**
   * The call a Confirm or Cancel names, with the decision set: refused (INVALID_ARGUMENT) when the
   * id is unknown or expired, of another chatbot or conversation, or already decided the other way.
   */
  decide(id: string, chatbotId: string, sessionId: string, decision: Decision): Promise<PendingCall>;
}

const ID = /^[0-9a-f-]{36}$/;

/** One call's identity within a conversation: the action and its inputs. */
const fingerprintOf = (call: Pick<PendingCall, 'actionName' | 'arguments'>) =>
  createHash('sha256')
    .update(JSON.stringify([call.actionName, call.arguments]))
    .digest('hex')
    .slice(0, 32);

/** The card's question from the action's name and the model's inputs: "cancel_order" {order_id: 1042} → "Cancel order (order id: 1042)?" */
export function confirmationQuestion(actionName: string, args: Record<string, unknown>): string {
  const words = actionName.split('_').filter(Boolean).join(' ');
  const phrase = `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
  const shown = Object.entries(args)
    .filter(([, v]) => v !== null && v !== undefined && v !== '' && typeof v !== 'object')
    .slice(0, 4)
    .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${String(v).slice(0, 80)}`);
  return shown.length ? `${phrase} (${shown.join(', ')})?` : `${phrase}?`;
}

export function redisPendingActions(redis: Redis, prefix: string): PendingActions {
  const keys = redisKeys(prefix);
  const read = async (id: string): Promise<PendingCall | null> => {
    if (!ID.test(id)) return null;
    const raw = await withRedisDeadline(redis.get(keys.actionConfirmCall(id)));
    return raw ? (JSON.parse(raw) as PendingCall) : null;
  };
  return {
    async open(call) {
      const openKey = keys.actionConfirmOpen(call.chatbotId, call.sessionId, fingerprintOf(call));
      const id = randomUUID();
      const won = await withRedisDeadline(redis.set(openKey, id, 'EX', PENDING_TTL_SECONDS, 'NX'));
      if (won !== 'OK') {
        const existing = await read((await withRedisDeadline(redis.get(openKey))) ?? '');
        if (existing) return existing;
        await withRedisDeadline(redis.set(openKey, id, 'EX', PENDING_TTL_SECONDS));
      }
      const pending: PendingCall = { ...call, id, expiresAt: new Date(Date.now() + PENDING_TTL_SECONDS * 1000).toISOString() };
      await withRedisDeadline(redis.set(keys.actionConfirmCall(id), JSON.stringify(pending), 'EX', PENDING_TTL_SECONDS));
      return pending;
    },
    async decide(id, chatbotId, sessionId, decision) {
      const pending = await read(id);
      if (!pending || pending.chatbotId !== chatbotId || pending.sessionId !== sessionId) throw invalid(CONFIRMATION_INVALID);
      const key = keys.actionConfirmDecision(id);
      const set = await withRedisDeadline(redis.set(key, decision, 'EX', PENDING_TTL_SECONDS, 'NX'));
      if (set !== 'OK' && (await withRedisDeadline(redis.get(key))) !== decision) throw invalid(CONFIRMATION_INVALID);
      if (decision === 'cancel' || set === 'OK') {
        // Decided: the model asking again opens a new card.
        await withRedisDeadline(redis.del(keys.actionConfirmOpen(chatbotId, sessionId, fingerprintOf(pending))));
      }
      return pending;
    },
  };
}
