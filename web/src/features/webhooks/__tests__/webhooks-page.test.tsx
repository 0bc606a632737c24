import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { WebhookDeliveryStatus } from '../../../gql/graphql';
import { graphqlError } from '../../../test/mock-link';
import { openAsMember, sampleWorkspace } from '../../../test/workspace-fixtures';
import { SECRET_ONCE_MESSAGE } from '../components/secret-dialog';
import { WEBHOOKS_NOT_ALLOWED_MESSAGE } from '../components/webhooks-page';
import { formatDuration, httpStatusLabel } from '../webhook-labels';

const EVENT_TYPES = [
  { __typename: 'WebhookEventType' as const, type: 'conversation.started', description: 'A conversation started.' },
  { __typename: 'WebhookEventType' as const, type: 'credit.low', description: 'Credit fell below the threshold.' },
];

function delivery(id: string, status: WebhookDeliveryStatus, overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'WebhookDelivery' as const,
    id,
    endpointId: 'e1',
    eventType: 'credit.low',
    status,
    attempts: 1,
    responseStatus: status === 'SUCCEEDED' ? 200 : (null as number | null),
    durationMs: 42 as number | null,
    responseExcerpt: 'thanks',
    error: null as string | null,
    test: true,
    createdAt: '2025-03-02T10:00:00.000Z',
    lastAttemptAt: '2025-03-02T10:00:01.000Z' as string | null,
    attemptLog: [] as ReturnType<typeof attempt>[],
    ...overrides,
  };
}

function attempt(attemptedAt: string, responseStatus: number | null, durationMs: number, error: string | null) {
  return { __typename: 'WebhookAttempt' as const, attemptedAt, responseStatus, durationMs, error };
}

function endpoint(overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'WebhookEndpoint' as const,
    id: 'e1',
    url: 'https://hooks.example.com/parley',
    events: ['credit.low'],
    enabled: true,
    disabledReason: null as string | null,
    failingSince: null as string | null,
    createdAt: '2025-03-01T10:00:00.000Z',
    lastDelivery: delivery('d1', 'SUCCEEDED') as ReturnType<typeof delivery> | null,
    ...overrides,
  };
}

const endpointsAnswer = (endpoints: ReturnType<typeof endpoint>[]) => () => ({
  data: { webhookEndpoints: endpoints, webhookEventTypes: EVENT_TYPES },
});

const deliveriesAnswer =
  (deliveries: ReturnType<typeof delivery>[], nextCursor: string | null = null) =>
  () => ({
    data: { webhookDeliveries: { __typename: 'WebhookDeliveryPage' as const, deliveries, nextCursor } },
  });

describe('Webhooks page', () => {
  it('lists the endpoints with their events, state and last delivery, and is linked from the workspace menu', async () => {
    openAsMember('/workspace/webhooks', sampleWorkspace({ role: 'ADMIN' }), { WebhookEndpoints: endpointsAnswer([endpoint()]) });
    const card = within(await screen.findByRole('region', { name: 'https://hooks.example.com/parley' }));
    expect(card.getByText('credit.low')).toBeTruthy();
    expect(card.getByText('Succeeded')).toBeTruthy();
    expect(card.getByRole('switch', { name: 'Enabled' }).getAttribute('aria-checked')).toBe('true');
    expect(document.title).toBe('Webhooks — Parley');

    fireEvent.click(screen.getByRole('button', { name: /^Workspace:/ }));
    expect(screen.getByRole('link', { name: 'Webhooks' }).getAttribute('href')).toBe('/workspace/webhooks');
  });

  it('adds an endpoint and shows its secret once', async () => {
    const { calls } = openAsMember('/workspace/webhooks', sampleWorkspace(), {
      WebhookEndpoints: endpointsAnswer([]),
      CreateWebhookEndpoint: () => ({
        data: {
          createWebhookEndpoint: {
            __typename: 'CreatedWebhookEndpoint' as const,
            secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0',
            endpoint: { ...endpoint(), lastDelivery: undefined },
          },
        },
      }),
    });
    expect(await screen.findByRole('heading', { name: 'No endpoints yet' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Add endpoint' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add endpoint' }));
    fireEvent.change(dialog.getByLabelText('Endpoint URL'), { target: { value: ' https://hooks.example.com/parley ' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Add endpoint' }));
    expect(dialog.getByRole('alert').textContent).toBe('Choose at least one event.');
    fireEvent.click(dialog.getByLabelText('credit.low'));
    fireEvent.click(dialog.getByRole('button', { name: 'Add endpoint' }));

    const secret = within(await screen.findByRole('dialog', { name: 'Endpoint added' }));
    expect(secret.getByLabelText('Signing secret').textContent).toBe('whsec_c2VjcmV0c2VjcmV0c2VjcmV0');
    expect(secret.getByText(SECRET_ONCE_MESSAGE)).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'CreateWebhookEndpoint')?.variables).toEqual({
      input: { url: 'https://hooks.example.com/parley', events: ['credit.low'] },
    });
    fireEvent.click(secret.getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.queryByText('whsec_c2VjcmV0c2VjcmV0c2VjcmV0')).toBeNull();
  });

  it('shows the server’s refusal of an address', async () => {
    openAsMember('/workspace/webhooks', sampleWorkspace(), {
      WebhookEndpoints: endpointsAnswer([]),
      CreateWebhookEndpoint: () => graphqlError('This address is not allowed', 'BAD_USER_INPUT'),
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Add endpoint' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Add endpoint' }));
    fireEvent.change(dialog.getByLabelText('Endpoint URL'), { target: { value: 'https://10.0.0.1/' } });
    fireEvent.click(dialog.getByRole('button', { name: 'Select all' }));
    fireEvent.click(dialog.getByRole('button', { name: 'Add endpoint' }));
    expect((await dialog.findByRole('alert')).textContent).toBe('This address is not allowed');
  });

  it('opens the delivery log, expands a response, redelivers and sends a test event', async () => {
    const { calls } = openAsMember('/workspace/webhooks', sampleWorkspace(), {
      WebhookEndpoints: endpointsAnswer([endpoint()]),
      WebhookDeliveries: deliveriesAnswer([
        delivery('d2', 'FAILED', {
          responseStatus: 500,
          attempts: 12,
          responseExcerpt: 'boom',
          error: 'HTTP 500',
          durationMs: 1500,
          attemptLog: [
            attempt('2025-03-02T09:00:00.000Z', null, 5000, 'The endpoint took too long to answer'),
            attempt('2025-03-02T10:00:00.000Z', 500, 1500, 'HTTP 500'),
          ],
        }),
        delivery('d1', 'SUCCEEDED'),
      ]),
      RedeliverWebhook: () => ({ data: { redeliverWebhook: delivery('d2', 'PENDING') } }),
      SendTestWebhook: () => ({ data: { sendTestWebhook: delivery('d3', 'PENDING') } }),
    });
    const card = within(await screen.findByRole('region', { name: 'https://hooks.example.com/parley' }));
    fireEvent.click(card.getByRole('button', { name: 'Delivery log' }));
    const table = within(await card.findByRole('table'));
    const rows = table.getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(within(rows[1]).getByText('Failed')).toBeTruthy();
    expect(within(rows[1]).getByText('500')).toBeTruthy();
    expect(within(rows[1]).getByText('1.5 s')).toBeTruthy();
    expect(within(rows[1]).getByText('12')).toBeTruthy();

    fireEvent.click(within(rows[1]).getByRole('button', { name: 'Response' }));
    expect(table.getByText('boom')).toBeTruthy();
    // The last failure, then each attempt kept, oldest first.
    expect(table.getByText('Last 2 of 12 attempts')).toBeTruthy();
    const attempts = within(table.getByRole('list', { name: 'Attempts' })).getAllByRole('listitem');
    expect(attempts.map((a) => a.textContent)).toEqual([
      expect.stringContaining('The endpoint took too long to answer'),
      expect.stringContaining('HTTP 500'),
    ]);
    expect(within(attempts[0]).getByText('5.0 s')).toBeTruthy();
    expect(within(attempts[1]).getByText('500')).toBeTruthy();
    expect(table.getAllByText('HTTP 500')).toHaveLength(2);

    fireEvent.click(within(rows[1]).getByRole('button', { name: 'Redeliver' }));
    await waitFor(() =>
      expect(calls.find((c) => c.operationName === 'RedeliverWebhook')?.variables).toEqual({ endpointId: 'e1', deliveryId: 'd2' }),
    );

    fireEvent.click(card.getByRole('button', { name: 'Send test event' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Send test event' }));
    fireEvent.change(dialog.getByLabelText('Event type'), { target: { value: 'conversation.started' } });
    expect(dialog.getByText('A conversation started.')).toBeTruthy();
    fireEvent.click(dialog.getByRole('button', { name: 'Send test event' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.operationName === 'SendTestWebhook')?.variables).toEqual({
      endpointId: 'e1',
      eventType: 'conversation.started',
    });
    expect(calls.find((c) => c.operationName === 'SendTestWebhook')?.headers['x-workspace-id']).toBe('w-team');
  });

  it('turns an endpoint off, rolls its secret and deletes it after confirming', async () => {
    const { calls } = openAsMember('/workspace/webhooks', sampleWorkspace(), {
      WebhookEndpoints: endpointsAnswer([endpoint({ lastDelivery: null })]),
      UpdateWebhookEndpoint: () => ({ data: { updateWebhookEndpoint: { ...endpoint(), enabled: false, lastDelivery: undefined } } }),
      RollWebhookSecret: () => ({ data: { rollWebhookSecret: { __typename: 'WebhookSecret' as const, secret: 'whsec_bmV3bmV3bmV3' } } }),
      DeleteWebhookEndpoint: () => ({ data: { deleteWebhookEndpoint: true } }),
    });
    const card = within(await screen.findByRole('region', { name: 'https://hooks.example.com/parley' }));
    expect(card.getByText('none yet')).toBeTruthy();
    fireEvent.click(card.getByRole('switch', { name: 'Enabled' }));
    await waitFor(() =>
      expect(calls.find((c) => c.operationName === 'UpdateWebhookEndpoint')?.variables).toEqual({ id: 'e1', input: { enabled: false } }),
    );

    fireEvent.click(card.getByRole('button', { name: 'Roll secret' }));
    fireEvent.click(
      within(await screen.findByRole('dialog', { name: 'Roll the signing secret?' })).getByRole('button', { name: 'Roll secret' }),
    );
    const secret = within(await screen.findByRole('dialog', { name: 'New signing secret' }));
    expect(secret.getByLabelText('Signing secret').textContent).toBe('whsec_bmV3bmV3bmV3');
    fireEvent.click(secret.getByRole('button', { name: 'Done' }));

    fireEvent.click(card.getByRole('button', { name: 'Delete' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Delete this endpoint?' }));
    expect(calls.some((c) => c.operationName === 'DeleteWebhookEndpoint')).toBe(false);
    fireEvent.click(confirm.getByRole('button', { name: 'Delete endpoint' }));
    await waitFor(() => expect(calls.find((c) => c.operationName === 'DeleteWebhookEndpoint')?.variables).toEqual({ id: 'e1' }));
  });

  it('edits an endpoint’s URL and events', async () => {
    const { calls } = openAsMember('/workspace/webhooks', sampleWorkspace(), {
      WebhookEndpoints: endpointsAnswer([endpoint()]),
      UpdateWebhookEndpoint: () => ({
        data: { updateWebhookEndpoint: { ...endpoint(), url: 'https://hooks.example.com/v2', lastDelivery: undefined } },
      }),
    });
    const card = within(await screen.findByRole('region', { name: 'https://hooks.example.com/parley' }));
    fireEvent.click(card.getByRole('button', { name: 'Edit' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Edit endpoint' }));
    expect((dialog.getByLabelText('Endpoint URL') as HTMLInputElement).value).toBe('https://hooks.example.com/parley');
    expect((dialog.getByLabelText('credit.low') as HTMLInputElement).checked).toBe(true);
    fireEvent.change(dialog.getByLabelText('Endpoint URL'), { target: { value: 'https://hooks.example.com/v2' } });
    fireEvent.click(dialog.getByLabelText('conversation.started'));
    fireEvent.click(dialog.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.operationName === 'UpdateWebhookEndpoint')?.variables).toEqual({
      id: 'e1',
      input: { url: 'https://hooks.example.com/v2', events: ['credit.low', 'conversation.started'] },
    });
  });

  it('tells an editor it is not allowed, without asking, and the workspace menu has no link', async () => {
    const { calls } = openAsMember('/workspace/webhooks', sampleWorkspace({ role: 'EDITOR' }));
    expect(await screen.findByRole('heading', { name: 'Not allowed' })).toBeTruthy();
    expect(screen.getByText(WEBHOOKS_NOT_ALLOWED_MESSAGE)).toBeTruthy();
    expect(calls.some((c) => c.operationName === 'WebhookEndpoints')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: /^Workspace:/ }));
    expect(screen.getByRole('link', { name: 'Members' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Webhooks' })).toBeNull();
  });
});

describe('webhook labels', () => {
  it('formats durations and HTTP statuses', () => {
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(42)).toBe('42 ms');
    expect(formatDuration(1500)).toBe('1.5 s');
    expect(formatDuration(12_000)).toBe('12 s');
    expect(httpStatusLabel(null)).toBe('—');
    expect(httpStatusLabel(204)).toBe('204');
  });
});
