import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { channelConnection, renderChannelsCard as renderCard } from './channels-card-fixtures';

const TOKEN = 'EAAGwebTestSystemUserTokenForTheCard0123WXYZ';
const APP_SECRET = '0123456789abcdef0123456789abcdef';
const CALLBACK = 'https://parley.example/api/channels/whatsapp/conn-wa';
const whatsappConnection = (over: Record<string, unknown> = {}) =>
  channelConnection({
    id: 'conn-wa',
    channel: 'whatsapp',
    tokenLastFour: 'WXYZ',
    botName: '+1 555-078-3881',
    accountId: '106540352242922',
    webhookUrl: CALLBACK,
    ...over,
  });

describe('the WhatsApp card', () => {
  it('shows the callback URL and the verify token once after connecting, the URL not twice, and never the token or app secret', async () => {
    let connected = false;
    const calls = renderCard({
      ChannelConnections: () => ({ data: { channelConnections: connected ? [whatsappConnection()] : [] } }),
      ConnectMetaChannel: () => {
        connected = true;
        return {
          data: { connectChannel: { __typename: 'ChannelConnection', id: 'conn-wa', webhookUrl: CALLBACK, verifyToken: 'verify-once' } },
        };
      },
    });
    const whatsapp = await screen.findByRole('region', { name: 'WhatsApp' });
    fireEvent.change(within(whatsapp).getByLabelText('Phone number id'), { target: { value: '106540352242922' } });
    fireEvent.change(within(whatsapp).getByLabelText('WhatsApp Business account id'), { target: { value: '102290129340398' } });
    fireEvent.change(within(whatsapp).getByLabelText('System user access token'), { target: { value: TOKEN } });
    fireEvent.change(within(whatsapp).getByLabelText('WhatsApp app secret'), { target: { value: APP_SECRET } });
    fireEvent.click(within(whatsapp).getByRole('button', { name: 'Connect WhatsApp' }));
    expect(await within(whatsapp).findByText('Verify token (shown only now)')).toBeTruthy();
    expect(await within(whatsapp).findByText('Connected')).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'ConnectMetaChannel')?.variables).toMatchObject({ channel: 'whatsapp', token: TOKEN });
    expect(within(whatsapp).getByText('verify-once')).toBeTruthy();
    // Parley subscribed the account; the callback URL and verify token stay the owner's to set in their app.
    expect(
      within(whatsapp).getByText(/^Parley subscribed this account to your app's webhooks\. .* are your app's own setting/),
    ).toBeTruthy();
    expect(within(whatsapp).getAllByText(CALLBACK)).toHaveLength(1);
    expect(document.body.textContent).not.toContain(TOKEN);
    expect(document.body.textContent).not.toContain(APP_SECRET);
  });

  it('shows a failing connection with Meta’s words, and its callback URL to paste again', async () => {
    renderCard({
      ChannelConnections: () => ({
        data: { channelConnections: [whatsappConnection({ status: 'failing', lastError: '401 Error validating access token' })] },
      }),
    });
    const whatsapp = await screen.findByRole('region', { name: 'WhatsApp' });
    expect(await within(whatsapp).findByText('Failing')).toBeTruthy();
    expect(within(whatsapp).getByRole('alert').textContent).toBe('WhatsApp said: 401 Error validating access token');
    expect(within(whatsapp).getAllByText(CALLBACK)).toHaveLength(1);
    expect(within(whatsapp).queryByText('Verify token (shown only now)')).toBeNull();
  });
});

describe('the Telegram card', () => {
  it('shows a failing bot with Telegram’s words', async () => {
    renderCard({
      ChannelConnections: () => ({
        data: {
          channelConnections: [
            whatsappConnection({
              id: 'conn-tg',
              channel: 'telegram',
              botName: 'museum_bot',
              accountId: null,
              webhookUrl: null,
              status: 'failing',
              lastError: '401 Unauthorized',
            }),
          ],
        },
      }),
    });
    const telegram = await screen.findByRole('region', { name: 'Telegram' });
    expect(await within(telegram).findByText('Failing')).toBeTruthy();
    expect(within(telegram).getByText('@museum_bot')).toBeTruthy();
    expect(within(telegram).getByRole('alert').textContent).toBe('Telegram said: 401 Unauthorized');
  });
});
