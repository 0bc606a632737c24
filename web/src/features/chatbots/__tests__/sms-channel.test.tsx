import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { channelConnection, renderChannelsCard as renderCard } from './channels-card-fixtures';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = '0123456789abcdef0123456789ab1234';
const smsConnection = () =>
  channelConnection({
    id: 'conn-sms',
    channel: 'sms',
    tokenLastFour: '1234',
    botName: '+15550100100',
    accountId: SID,
    webhookUrl: 'https://parley.example/api/channels/sms/conn-sms',
  });

describe('the SMS card', () => {
  it('connects with the Account SID, the Auth Token (sent once, never shown back) and the number, then shows the webhook URL Parley set in Twilio', async () => {
    let connected = false;
    const calls = renderCard({
      ChannelConnections: () => ({ data: { channelConnections: connected ? [smsConnection()] : [] } }),
      ConnectSms: () => {
        connected = true;
        return { data: { connectChannel: { __typename: 'ChannelConnection', id: 'conn-sms' } } };
      },
    });
    const sms = await screen.findByRole('region', { name: 'SMS' });
    const token = within(sms).getByLabelText('Twilio Auth Token') as HTMLInputElement;
    expect(token.type).toBe('password');
    expect((within(sms).getByRole('button', { name: 'Connect SMS' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(within(sms).getByLabelText('Twilio Account SID'), { target: { value: SID } });
    fireEvent.change(token, { target: { value: TOKEN } });
    fireEvent.change(within(sms).getByLabelText('Twilio phone number'), { target: { value: '+15550100100' } });
    fireEvent.click(within(sms).getByRole('button', { name: 'Connect SMS' }));
    expect(await within(sms).findByLabelText('Twilio webhook URL')).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'ConnectSms')?.variables).toEqual({
      chatbotId: 'c1',
      accountId: SID,
      token: TOKEN,
      phoneNumber: '+15550100100',
    });
    expect(within(sms).getByLabelText('Twilio webhook URL').textContent).toBe('https://parley.example/api/channels/sms/conn-sms');
    // Parley set it on the number: the owner pastes nothing, the URL is there for reference.
    expect(within(sms).getByText(/^Parley set the number's “A message comes in” webhook in Twilio to this URL/)).toBeTruthy();
    expect(within(sms).getByText('•••• 1234')).toBeTruthy();
    expect(within(sms).getByText('Connected', { exact: true })).toBeTruthy();
    expect(document.body.textContent).not.toContain(TOKEN);
  });
});
