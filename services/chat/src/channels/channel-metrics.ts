// What /metrics counts of the messaging channels (docs/metrics.md), by channel: messages taken in
// from the webhook, messages sent, updates refused by verification, and sends that failed for good.
import { counter } from '@parley/common/metrics.ts';

export const channelInbound = counter(
  'parley_channel_inbound_total',
  "Channel users' messages verified and queued from a provider's webhook, by channel.",
  ['channel'],
);
export const channelOutbound = counter(
  'parley_channel_outbound_total',
  'Messages sent on a channel (answers, tests, agent replies), by channel.',
  ['channel'],
);
export const channelVerificationFailures = counter(
  'parley_channel_verification_failures_total',
  'Webhook calls refused because their secret or signature was missing or wrong, by channel.',
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
