// The messaging channels' webhooks answered by the gateway itself (docs/adr/0064-channels-for-operators.md,
// docs/adr/0069-slack-and-meta-checked-at-the-edge.md): Telegram's, Slack's and Meta's (WhatsApp,
// Messenger, Instagram) acknowledgement is the check against the connection's verifier, the body's
// read and one queue add, with no call to chat on the way once the verifier is known. A verifier is
// fetched from chat once (GetChannelVerifier; concurrent first calls for one connection share that
// fetch) and kept in process, 10,000 at most, for 60 s, exactly as chat keeps its own (ADR 44):
// Telegram's is the SHA-256 of its secret (nothing that lets anyone post as Telegram); Slack's is the
// signing secret and Meta's the app secret, which their HMACs need: held in memory only, never logged,
// never answered. A connection removed through another gateway is refused here within a minute, and
// what it queued meanwhile finds no connection in the worker and is left. An unknown connection is
// asked each time and never kept. Exactly once is the queue's: the job id `<channel>:<connection>:<provider message id>`.
// WhatsApp's status callbacks move a delivery in chat's database: a verified body carrying any is
// handed to chat's ReceiveChannelUpdate whole (chat checks it again, applies them, queues its messages).
import { create } from '@bufbuild/protobuf';
import { ChannelMessageReceivedSchema } from '@parley/proto/parley/events/v1/channel_message_received_pb.js';
import {
  channelInbound,
  channelVerificationFailures,
  inboundJobId,
  MAX_QUEUED_TEXT,
  parseTelegramUpdate,
  SECRET_MISSING,
  SECRET_REFUSED,
  secretMatches,
  verifierCache,
  type Verifier,
  type VerifierCache,
} from '@parley/common/channel-webhook.ts';
import {
  parseSlackEvent,
  slackTeamOf,
  SIGNATURE_MISSING as SLACK_SIGNATURE_MISSING,
  SIGNATURE_REFUSED as SLACK_SIGNATURE_REFUSED,
  slackSignatureValid,
} from '@parley/common/channel-webhook-slack.ts';
import {
  parseMetaWebhook,
  signatureMatches,
  SIGNATURE_MISSING as META_SIGNATURE_MISSING,
  SIGNATURE_REFUSED as META_SIGNATURE_REFUSED,
  VERIFY_TOKEN_REFUSED,
  META_CHANNELS,
  type MetaChannelName,
} from '@parley/common/channel-webhook-meta.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { Producer } from '@parley/common/queues.ts';
import { forbidden, notFound, unauthenticated } from '@parley/common/rpc-errors.ts';
import type { Clients } from '../../http/clients.ts';

export const SLACK_APP_NOT_CONFIGURED = "No Slack app is configured on this Parley: a Slack connection's events go to its own Request URL.";

type Channel = 'telegram' | 'slack' | MetaChannelName;
const CHANNELS: readonly Channel[] = ['telegram', 'slack', ...META_CHANNELS];

/** Each throws UNAUTHENTICATED, PERMISSION_DENIED or INVALID_ARGUMENT as chat's check did, with the same messages. */
export interface ChannelIntake {
  telegram(req: { connectionId: string; secret: string; body: Uint8Array }): Promise<{ queued: boolean }>;
  /** `challenge` set: Slack's url_verification, answered back. */
  slack(req: {
    connectionId: string;
    signature: string;
    timestamp: string;
    body: Uint8Array;
  }): Promise<{ queued: boolean; challenge?: string }>;
  /**
   * An event posted to the operator's Slack app's one Request URL (docs/adr/0075-one-request-url-for-the-operators-slack-app.md):
   * checked under the app's signing secret (NOT_FOUND when no app is configured), routed by its team_id to the
   * connection installed through the app in that workspace, and queued as that connection's own event.
   */
  slackApp(req: { signature: string; timestamp: string; body: Uint8Array }): Promise<{ queued: boolean; challenge?: string }>;
  meta(req: { channel: MetaChannelName; connectionId: string; signature: string; body: Uint8Array }): Promise<{ queued: boolean }>;
  /** Meta's GET handshake: resolves for `subscribe` with the connection's verify token. */
  metaHandshake(req: { channel: MetaChannelName; connectionId: string; mode: string; verifyToken: string }): Promise<void>;
  close(): Promise<void>;
}

/** This process's kept verifiers (one per process, as chat's are): a disconnect through this gateway forgets its connection here. */
const processVerifiers = verifierCache({ max: 10_000, ttlMs: 60_000 });
export const forgetChannelVerifier = (connectionId: string) => processVerifiers.forget(connectionId);

export function channelIntake(deps: {
  clients: Pick<Clients, 'chat'>;
  inbound: Producer<typeof ChannelMessageReceivedSchema>;
  verifiers?: VerifierCache;
}): ChannelIntake {
  const verifiers = deps.verifiers ?? processVerifiers;
  const fetching = new Map<string, Promise<Verifier | null>>();
  // Each channel's series looked up once, not on every call.
  const counted = new Map(
    CHANNELS.map((channel) => [
      channel,
      { inbound: channelInbound.series({ channel }), refused: channelVerificationFailures.series({ channel }) },
    ]),
  );
  const refused = (channel: Channel, err: Error) => {
    counted.get(channel)!.refused.inc();
    return err;
  };

  /** The connection's verifier when it is a connection of this channel; null otherwise (a refusal that names nothing). */
  async function verifierOf(channel: Channel, connectionId: string): Promise<Verifier | null> {
    if (!isUuid(connectionId)) return null;
    const kept = verifiers.get(connectionId);
    if (kept) return kept.channel === channel ? kept : null;
    const key = `${channel}:${connectionId}`;
    let pending = fetching.get(key);
    if (!pending) {
      pending = deps.clients.chat
        .getChannelVerifier({ channel, connectionId })
        .then((r) => {
          if (!r.found) return null;
          const v: Verifier = { id: r.connectionId, channel, secretHash: r.secretHash };
          if (r.signingSecret) Object.assign(v, { signingSecret: r.signingSecret, accountId: r.accountId || null });
          if (r.appSecret) Object.assign(v, { appSecret: r.appSecret, accountId: r.accountId || null });
          verifiers.set(v);
          return v;
        })
        .finally(() => fetching.delete(key));
      fetching.set(key, pending);
    }
    return pending;
  }

  /**
   * The operator's Slack app: its signing secret (team ""), or its entry for one workspace, naming the
   * connection installed there (connectionId "" when none). Kept as connections' verifiers are, under
   * ids no connection has; the app's absence too (chat's configuration changes only with a restart),
   * a workspace without an install is asked each time.
   */
  async function slackAppOf(team: string): Promise<Verifier | null> {
    const id = team ? `slack-app:${team}` : 'slack-app';
    const kept = verifiers.get(id);
    if (kept) return kept.signingSecret ? kept : null;
    let pending = fetching.get(id);
    if (!pending) {
      pending = deps.clients.chat
        .getChannelVerifier({ channel: 'slack', connectionId: '', slackApp: true, slackTeamId: team })
        .then((r) => {
          const v: Verifier = { id, channel: 'slack', secretHash: '', signingSecret: r.found ? r.signingSecret : '' };
          if (r.connectionId) Object.assign(v, { connectionId: r.connectionId, accountId: r.accountId || team });
          if (!team || r.connectionId) verifiers.set(v);
          return v.signingSecret ? v : null;
        })
        .finally(() => fetching.delete(id));
      fetching.set(id, pending);
    }
    return pending;
  }

  const publish = async (
    channel: Channel,
    connectionId: string,
    m: { providerMessageId: string; chatId: string; userId: string; userName: string; text: string },
  ) => {
    await deps.inbound.publish(
      create(ChannelMessageReceivedSchema, { channel, connectionId, ...m }),
      inboundJobId(channel, connectionId, m.providerMessageId),
    );
    counted.get(channel)!.inbound.inc();
  };

  /**
   * A checked Slack event: the URL check's challenge answered, what is not a message left, a message
   * queued on its connection; Parley's bot removed from the workspace is chat's to record on the
   * connection (it checks the same signature again).
   */
  const queueSlackEvent = async (
    event: ReturnType<typeof parseSlackEvent>,
    connectionOf: () => Promise<string | null>,
    req: { signature: string; timestamp: string; body: Uint8Array },
  ) => {
    if (event.kind === 'challenge') return { queued: false, challenge: event.challenge };
    if (event.kind === 'ignored') return { queued: false };
    const connectionId = await connectionOf();
    if (!connectionId) return { queued: false };
    if (event.kind === 'removed') {
      await deps.clients.chat.receiveChannelUpdate({
        channel: 'slack',
        connectionId,
        secret: req.signature,
        timestamp: req.timestamp,
        body: req.body,
      });
      return { queued: false };
    }
    await publish('slack', connectionId, {
      providerMessageId: event.eventId,
      chatId: event.chatId,
      userId: event.userId,
      userName: '',
      text: event.text,
    });
    return { queued: true };
  };

  return {
    async telegram(req) {
      if (!req.secret) throw refused('telegram', unauthenticated(SECRET_MISSING));
      const v = await verifierOf('telegram', req.connectionId);
      // An unknown connection reads as a wrong secret: the refusal does not tell which connections exist.
      if (!v || !secretMatches(req.secret, v.secretHash)) throw refused('telegram', forbidden(SECRET_REFUSED));
      const message = parseTelegramUpdate(req.body);
      if (!message) return { queued: false };
      await publish('telegram', v.id, {
        providerMessageId: message.updateId,
        chatId: message.chatId,
        userId: message.userId,
        userName: message.userName,
        text: message.text,
      });
      return { queued: true };
    },

    async slack(req) {
      if (!req.signature || !req.timestamp) throw refused('slack', unauthenticated(SLACK_SIGNATURE_MISSING));
      const v = await verifierOf('slack', req.connectionId);
      if (
        !v?.signingSecret ||
        !slackSignatureValid(v.signingSecret, { signature: req.signature, timestamp: req.timestamp, body: req.body })
      )
        throw refused('slack', forbidden(SLACK_SIGNATURE_REFUSED));
      return queueSlackEvent(parseSlackEvent(req.body, MAX_QUEUED_TEXT, v.accountId), async () => v.id, req);
    },

    async slackApp(req) {
      if (!req.signature || !req.timestamp) throw refused('slack', unauthenticated(SLACK_SIGNATURE_MISSING));
      const app = await slackAppOf('');
      if (!app) throw notFound(SLACK_APP_NOT_CONFIGURED);
      if (!slackSignatureValid(app.signingSecret!, { signature: req.signature, timestamp: req.timestamp, body: req.body }))
        throw refused('slack', forbidden(SLACK_SIGNATURE_REFUSED));
      const team = slackTeamOf(req.body);
      // A workspace with no install (removed, or never made): acknowledged so that Slack stops retrying, and left.
      return queueSlackEvent(
        parseSlackEvent(req.body, MAX_QUEUED_TEXT, team || null),
        async () => (team ? ((await slackAppOf(team))?.connectionId ?? null) : null),
        req,
      );
    },

    async meta(req) {
      const { channel } = req;
      if (!req.signature) throw refused(channel, unauthenticated(META_SIGNATURE_MISSING));
      const v = await verifierOf(channel, req.connectionId);
      if (!v?.appSecret || !signatureMatches(req.signature, req.body, v.appSecret))
        throw refused(channel, forbidden(META_SIGNATURE_REFUSED));
      const { messages, statuses } = parseMetaWebhook(channel, req.body, MAX_QUEUED_TEXT);
      // An app may serve several accounts: only this connection's account is its to answer.
      const mine = <T extends { accountId: string }>(e: T) => !v.accountId || !e.accountId || e.accountId === v.accountId;
      if (statuses.some(mine))
        return deps.clients.chat.receiveChannelUpdate({ channel, connectionId: v.id, secret: req.signature, body: req.body });
      let queued = false;
      for (const m of messages.filter(mine)) {
        await publish(channel, v.id, { providerMessageId: m.messageId, chatId: m.from, userId: m.from, userName: m.name, text: m.text });
        queued = true;
      }
      return { queued };
    },

    async metaHandshake(req) {
      const refuse = () => refused(req.channel, forbidden(VERIFY_TOKEN_REFUSED));
      if (req.mode !== 'subscribe' || !req.verifyToken) throw refuse();
      const v = await verifierOf(req.channel, req.connectionId);
      if (!v || !secretMatches(req.verifyToken, v.secretHash)) throw refuse();
    },

    close: () => deps.inbound.close(),
  };
}
