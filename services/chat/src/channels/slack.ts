// Slack's rules in chat (docs/adr/0057-slack-channel.md): where an answer goes (a thread's chat id
// `{channel}:{thread_ts}`, a direct message's the channel alone) and how its sources read in Slack's
// mrkdwn. The request's signature and the events Parley answers are checked by the gateway and chat
// alike, so they live in `@parley/common/channel-webhook-slack.ts` and are re-exported here.
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Source } from '../public-chat/citations.ts';
import { SOURCES_HEADING } from './format.ts';
// The signature and the events are read by the gateway too, which checks Slack's webhook by itself (ADR 69).
export {
  SLACK_BODY_INVALID,
  SLACK_MAX_SKEW_SECONDS,
  parseSlackEvent,
  slackSignatureValid,
  type SlackEvent,
} from '@parley/common/channel-webhook-slack.ts';
import { SLACK_CHANNEL_ID as CHANNEL_ID, SLACK_TS as TS } from '@parley/common/channel-webhook-slack.ts';

/** Where a chat id's answer goes: the channel, and the thread (empty: the channel itself). */
export function slackDestination(chatId: string): { channel: string; threadTs: string } {
  const [channel, threadTs = ''] = chatId.split(':', 2);
  if (!CHANNEL_ID.test(channel) || (threadTs && !TS.test(threadTs))) throw invalid(SLACK_CHAT_ID_INVALID);
  return { channel, threadTs };
}
/** A Slack connection's last error once Slack told Parley its bot left the workspace. */
export const SLACK_REMOVED =
  'Parley was removed from this Slack workspace (the app uninstalled or its bot token revoked). Add it to Slack again, or disconnect.';
export const SLACK_CHAT_ID_INVALID = 'The chat id must be a Slack channel id (C…, D… or G…), optionally with :thread_ts.';

/** Slack's mrkdwn escapes: &, < and > are the only characters its text reserves. */
const escapeMrkdwn = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The text, then "Sources:" and one line per cited source, linked as Slack's `<url|title>`. */
export function withSlackSourcesFooter(text: string, sources: readonly Source[]): string {
  const body = escapeMrkdwn(text);
  if (sources.length === 0) return body;
  const lines = sources.map((s, i) => {
    const title = escapeMrkdwn((s.title || 'Source').replace(/[|\n]/g, ' '));
    return /^https?:\/\/[^\s<>|]+$/.test(s.url ?? '') ? `${i + 1}. <${s.url}|${title}>` : `${i + 1}. ${title}`;
  });
  return `${body}\n\n${SOURCES_HEADING}\n${lines.join('\n')}`;
}
