import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { channelConnection, renderChannelsCard as renderCard } from './channels-card-fixtures';

const slackConnection = (addedToSlack: boolean) =>
  channelConnection({
    id: 'conn-slack',
    channel: 'slack',
    tokenLastFour: 'AbCd',
    botName: 'parley_app (Parley Test)',
    accountId: 'T0PARLEY',
    webhookUrl: 'https://parley.example/api/channels/slack/conn-slack',
    addedToSlack,
  });

describe('the Slack card', () => {
  it('gives a pasted Slack app its own Request URL to set in the app', async () => {
    renderCard({ ChannelConnections: () => ({ data: { channelConnections: [slackConnection(false)] } }) });
    const slack = await screen.findByRole('region', { name: 'Slack' });
    expect((await within(slack).findByLabelText('Slack Request URL')).textContent).toBe(
      'https://parley.example/api/channels/slack/conn-slack',
    );
    expect(within(slack).getByText(/In your Slack app, turn on Event Subscriptions/)).toBeTruthy();
  });

  it('asks for no Request URL once added to Slack: the operator set the app’s', async () => {
    renderCard({ ChannelConnections: () => ({ data: { channelConnections: [slackConnection(true)] } }) });
    const slack = await screen.findByRole('region', { name: 'Slack' });
    expect(await within(slack).findByText(/Added to Slack: mention the bot/)).toBeTruthy();
    expect(within(slack).queryByLabelText('Slack Request URL')).toBeNull();
    expect(slack.textContent).not.toContain('your Slack app');
    expect(within(slack).getByText('Connected', { exact: true })).toBeTruthy();
  });
});
