// Telegram's webhook answered by the gateway itself (docs/adr/0064-channels-for-operators.md): the
// acknowledgement is the header's check against the connection's secret hash, the body's read and one
// queue add, with no call to chat on the way once the connection's verifier is known. The verifier
// (the connection's id and the SHA-256 of its secret: nothing that lets anyone post as Telegram) is
// fetched from chat once (GetChannelVerifier; concurrent first calls for one connection share that
// fetch) and kept in process, 10,000 at most, for 60 s, exactly as chat keeps its own (ADR 44): a
// connection removed through another gateway is refused here within a minute, and what it queued
// meanwhile finds no connection in the worker and is left. An unknown connection is asked each time
// and never kept. Exactly once is the queue's: the job id `telegram:<connection>:<update_id>`.
import { create } from '@bufbuild/protobuf';
import { ChannelMessageReceivedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import {
  channelInbound,
  channelVerificationFailures,
  inboundJobId,
  parseTelegramUpdate,
  SECRET_MISSING,
  SECRET_REFUSED,
  secretMatches,
  verifierCache,
  type Verifier,
  type VerifierCache,
} from '@parley/common/channel-webhook.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { Producer } from '@parley/common/queues.ts';
import { forbidden, unauthenticated } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';

export interface TelegramIntake {
  /** Verifies the call and queues its message; throws UNAUTHENTICATED, PERMISSION_DENIED or INVALID_ARGUMENT as chat's check did. */
  receive(req: { connectionId: string; secret: string; body: Uint8Array }): Promise<{ queued: boolean }>;
  close(): Promise<void>;
}

/** This process's kept verifiers (one per process, as chat's are): a disconnect through this gateway forgets its connection here. */
const processVerifiers = verifierCache({ max: 10_000, ttlMs: 60_000 });
export const forgetTelegramVerifier = (connectionId: string) => processVerifiers.forget(connectionId);

export function telegramIntake(deps: {
  clients: Pick<Clients, 'chat'>;
  inbound: Producer<typeof ChannelMessageReceivedSchema>;
  verifiers?: VerifierCache;
}): TelegramIntake {
  const verifiers = deps.verifiers ?? processVerifiers;
  const fetching = new Map<string, Promise<Verifier | null>>();
  const refused = (err: Error) => {
    channelVerificationFailures.series({ channel: 'telegram' }).inc();
    return err;
  };

  async function verifierOf(connectionId: string): Promise<Verifier | null> {
    if (!isUuid(connectionId)) return null;
    const kept = verifiers.get(connectionId);
    if (kept) return kept;
    let pending = fetching.get(connectionId);
    if (!pending) {
      pending = deps.clients.chat
        .getChannelVerifier({ channel: 'telegram', connectionId })
        .then((r) => {
          if (!r.found || !r.secretHash) return null;
          const v: Verifier = { id: r.connectionId, channel: 'telegram', secretHash: r.secretHash };
          verifiers.set(v);
          return v;
        })
        .finally(() => fetching.delete(connectionId));
      fetching.set(connectionId, pending);
    }
    return pending;
  }

  return {
    async receive(req) {
      if (!req.secret) throw refused(unauthenticated(SECRET_MISSING));
      const v = await verifierOf(req.connectionId);
      // An unknown connection reads as a wrong secret: the refusal does not tell which connections exist.
      if (!v || !secretMatches(req.secret, v.secretHash)) throw refused(forbidden(SECRET_REFUSED));
      const message = parseTelegramUpdate(req.body);
      if (!message) return { queued: false };
      await deps.inbound.publish(
        create(ChannelMessageReceivedSchema, {
          channel: 'telegram',
          connectionId: v.id,
          providerMessageId: message.updateId,
          chatId: message.chatId,
          userId: message.userId,
          userName: message.userName,
          text: message.text,
        }),
        inboundJobId('telegram', v.id, message.updateId),
      );
      channelInbound.series({ channel: 'telegram' }).inc();
      return { queued: true };
    },
    close: () => deps.inbound.close(),
  };
}
