// What /metrics counts of the messaging channels (docs/metrics.md), by channel: messages taken in
// from the webhook, messages sent, updates refused by verification, and sends that failed for good.
import { counter } from '@parley/common/metrics.ts';

// Counted by the gateway too, which queues Telegram's messages by itself (ADR 64).
export { channelInbound, channelVerificationFailures } from '@parley/common/channel-webhook.ts';
export const channelOutbound = counter(
  'parley_channel_outbound_total',
  'Messages sent on a channel (answers, tests, agent replies), by channel.',
  ['channel'],
);
export const channelSendFailures = counter(
  'parley_channel_send_failures_total',
  'Messages that could not be sent on a channel after every attempt, by channel.',
  ['channel'],
);
export const channelInboundSkipped = counter(
  'parley_channel_inbound_skipped_total',
  "Channel users' messages taken and never answered (email's auto-replies, bounces and loops), by channel and reason.",
  ['channel', 'reason'],
);
