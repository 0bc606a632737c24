// Slack's "Add to Slack" install (docs/adr/0064-channels-for-operators.md): the operator configures
// one Slack app (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_SIGNING_SECRET); the gateway sends the
// member to Slack's authorize page with a signed, single-use state and, on the way back, hands chat
// the code. Chat exchanges it with oauth.v2.access and connects the bot token Slack answers exactly
// as a pasted one (auth.test, the token and the app's signing secret sealed per connection), so every
// rule of ADR 57 holds for both ways in. The code and the client secret are never logged or stored.
// Disconnecting such a connection removes the app from its workspace with apps.uninstall
// (registrations.ts, docs/adr/0076-registrations-at-the-provider.md).
import { failedPrecondition, invalid, unavailable } from '@parley/common/rpc-errors.ts';
import { connectChannel, type ChannelConnectionView, type ConnectionDeps } from './connections.ts';
import { SlackError } from './slack-api.ts';

export const SLACK_INSTALL_NOT_CONFIGURED = 'Adding to Slack is not set up on this Parley: paste a bot token and signing secret instead.';
export const SLACK_INSTALL_REFUSED = 'Slack refused this install. Please try Add to Slack again.';
export const SLACK_INSTALL_UNREACHABLE = 'Slack could not be reached. Please try Add to Slack again.';

/** Slack's authorization codes: dot-separated digits and hex today; anything else is refused before a call. */
const CODE_SHAPE = /^[A-Za-z0-9._-]{8,300}$/;

export interface SlackApp {
  clientId: string;
  clientSecret: string;
  signingSecret: string;
}

/** The operator's Slack app from chat's environment; null unless all three are set. */
export function slackAppOf(env: {
  SLACK_CLIENT_ID?: string;
  SLACK_CLIENT_SECRET?: string;
  SLACK_SIGNING_SECRET?: string;
}): SlackApp | null {
  if (!env.SLACK_CLIENT_ID || !env.SLACK_CLIENT_SECRET || !env.SLACK_SIGNING_SECRET) return null;
  return { clientId: env.SLACK_CLIENT_ID, clientSecret: env.SLACK_CLIENT_SECRET, signingSecret: env.SLACK_SIGNING_SECRET };
}

export async function connectSlackInstall(
  deps: ConnectionDeps & { slackApp: SlackApp | null },
  input: { ownerId: string; chatbotId: string; uniqueId: string; code: string; redirectUri: string; webhookBaseUrl: string },
): Promise<ChannelConnectionView> {
  const app = deps.slackApp;
  if (!app) throw failedPrecondition(SLACK_INSTALL_NOT_CONFIGURED);
  if (!CODE_SHAPE.test(input.code)) throw invalid('code is missing or malformed.');
  if (!/^https?:\/\/[^\s]{1,500}$/.test(input.redirectUri)) throw invalid('redirect_uri must be an http(s) URL.');
  const { botToken } = await deps.slack.oauthAccess(app, input.code, input.redirectUri).catch((err: unknown) => {
    if (err instanceof SlackError && !err.retryable) throw failedPrecondition(SLACK_INSTALL_REFUSED);
    throw unavailable(SLACK_INSTALL_UNREACHABLE);
  });
  return connectChannel(deps, {
    ownerId: input.ownerId,
    chatbotId: input.chatbotId,
    uniqueId: input.uniqueId,
    channel: 'slack',
    token: botToken,
    webhookBaseUrl: input.webhookBaseUrl,
    signingSecret: app.signingSecret,
    slackAppInstall: true,
  });
}

/** A Slack workspace's id as Slack writes it (team_id). */
const TEAM_ID = /^[A-Z0-9]{1,30}$/;

/**
 * What the gateway checks an event posted to the operator app's one Request URL against
 * (docs/adr/0075-one-request-url-for-the-operators-slack-app.md): the app's signing secret, and
 * for a workspace the connection installed through the app there (none: connection_id empty, so
 * the event is acknowledged and left). found false when no app is configured: the path is refused.
 */
export async function slackAppVerifier(
  deps: Pick<ConnectionDeps, 'db'> & { slackApp: SlackApp | null },
  channel: string,
  teamId: string,
): Promise<{ found: boolean; connectionId: string; secretHash: string; signingSecret: string; appSecret: string; accountId: string }> {
  if (channel !== 'slack') throw invalid('Only Slack has an app of the operator.');
  if (teamId && !TEAM_ID.test(teamId)) throw invalid('slack_team_id is malformed.');
  const none = { found: false, connectionId: '', secretHash: '', signingSecret: '', appSecret: '', accountId: '' };
  if (!deps.slackApp) return none;
  const answer = { ...none, found: true, signingSecret: deps.slackApp.signingSecret };
  if (!teamId) return answer;
  const row = await deps.db.channelConnection.findFirst({
    where: { channel: 'slack', slackAppInstall: true, accountId: teamId },
    select: { id: true },
  });
  return row ? { ...answer, connectionId: row.id, accountId: teamId } : answer;
}
