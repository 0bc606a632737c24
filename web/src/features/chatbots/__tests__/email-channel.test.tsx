import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { channelConnection, renderChannelsCard as renderCard } from './channels-card-fixtures';

const ADDRESS = 'bot-3f2a9c41d0e7b5a86c12@mail.parley.example';
const emailConnection = (over: Record<string, unknown> = {}) =>
  channelConnection({
    id: 'conn-email',
    channel: 'email',
    tokenLastFour: 'eol0',
    botName: ADDRESS,
    accountId: ADDRESS,
    webhookUrl: 'https://parley.example/api/channels/email/conn-email',
    ...over,
  });

describe('the Email card', () => {
  it('connects with the Mailgun signing key, sent once and never shown back', async () => {
    let connected = false;
    const calls = renderCard({
      ChannelConnections: () => ({ data: { channelConnections: connected ? [emailConnection()] : [] } }),
      ConnectChannel: () => {
        connected = true;
        return { data: { connectChannel: { __typename: 'ChannelConnection', id: 'conn-email' } } };
      },
    });
    const email = await screen.findByRole('region', { name: 'Email' });
    const key = within(email).getByLabelText('Mailgun webhook signing key') as HTMLInputElement;
    expect(key.type).toBe('password');
    expect((within(email).getByRole('button', { name: 'Connect email' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(key, { target: { value: 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0' } });
    fireEvent.click(within(email).getByRole('button', { name: 'Connect email' }));
    expect(await within(email).findByLabelText('Inbound address')).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'ConnectChannel')?.variables).toMatchObject({
      chatbotId: 'c1',
      channel: 'email',
      signingSecret: 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0',
    });
    expect(within(email).getByLabelText('Inbound address').textContent).toBe(ADDRESS);
    expect(within(email).getByLabelText('Mailgun webhook URL').textContent).toBe('https://parley.example/api/channels/email/conn-email');
    expect(within(email).getByText('•••• eol0')).toBeTruthy();
    expect(within(email).getByText('Connected', { exact: true })).toBeTruthy();
    expect(document.body.textContent).not.toContain('key-3ax6xnjp29jd6fds4gc373sgvjxteol0');
  });

  it('shows a failing connection with its last error, and sends a test email to the address typed', async () => {
    const calls = renderCard({
      ChannelConnections: () => ({
        data: {
          channelConnections: [emailConnection({ status: 'failing', lastError: '401 SMTP login refused: 535 Authentication failed' })],
        },
      }),
      SendChannelTestMessage: () => ({
        data: { sendChannelTestMessage: { __typename: 'ChannelDelivery', id: 'd1', status: 'sent', lastError: null } },
      }),
    });
    const email = await screen.findByRole('region', { name: 'Email' });
    expect(await within(email).findByText('Failing')).toBeTruthy();
    expect(within(email).getByRole('alert').textContent).toBe('Email said: 401 SMTP login refused: 535 Authentication failed');
    fireEvent.change(within(email).getByLabelText('Send a test email to'), { target: { value: 'owner@example.com' } });
    fireEvent.click(within(email).getByRole('button', { name: 'Send a test message' }));
    expect(await within(email).findByText('Test message sent.')).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'SendChannelTestMessage')?.variables).toEqual({
      connectionId: 'conn-email',
      chatId: 'owner@example.com',
    });
  });

  it('disconnects after a confirmation', async () => {
    let removed = false;
    renderCard({
      ChannelConnections: () => ({ data: { channelConnections: removed ? [] : [emailConnection()] } }),
      DisconnectChannel: () => {
        removed = true;
        return { data: { disconnectChannel: true } };
      },
    });
    const email = await screen.findByRole('region', { name: 'Email' });
    fireEvent.click(await within(email).findByRole('button', { name: 'Disconnect' }));
    const dialog = await screen.findByRole('dialog', { name: 'Disconnect Email?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Disconnect' }));
    await waitFor(() =>
      expect(within(screen.getByRole('region', { name: 'Email' })).getByLabelText('Mailgun webhook signing key')).toBeTruthy(),
    );
  });

  it('lists the skipped mails with when, from whom and why, and says so when there are none', async () => {
    renderCard({
      ChannelConnections: () => ({ data: { channelConnections: [emailConnection()] } }),
      ChannelSkippedMessages: () => ({
        data: {
          channelSkippedMessages: [
            { __typename: 'SkippedMessage', contact: 'flood@example.com', reason: 'rate', receivedAt: '2026-12-03T10:05:00.000Z' },
            { __typename: 'SkippedMessage', contact: 'ada@example.com', reason: 'auto_reply', receivedAt: '2026-12-03T10:00:00.000Z' },
          ],
        },
      }),
    });
    const email = await screen.findByRole('region', { name: 'Email' });
    const list = await within(email).findByRole('list', { name: 'Skipped mails' });
    const rows = within(list)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('flood@example.com — Over 30 mails an hour from this sender');
    expect(rows[1]).toContain('ada@example.com — Auto-reply');
    expect(within(email).getByText('Never answered and never billed.')).toBeTruthy();
  });

  it('says no mail was skipped when none was', async () => {
    renderCard({
      ChannelConnections: () => ({ data: { channelConnections: [emailConnection()] } }),
      ChannelSkippedMessages: () => ({ data: { channelSkippedMessages: [] } }),
    });
    const email = await screen.findByRole('region', { name: 'Email' });
    expect(await within(email).findByText('No mail skipped.')).toBeTruthy();
  });
});
