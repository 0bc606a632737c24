import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as api from '../api/actions-api';
import type { ActionView } from '../api/actions-api';
import { ActionsCard } from '../components/actions-card';
import { WorkspaceContext, type WorkspaceState } from '../../../lib/workspace/workspace-context';
import type { Workspace } from '../../../lib/workspace/roles';

const action: ActionView = {
  id: 'act_1',
  chatbotId: 'bot_1',
  name: 'cancel_order',
  whenToUse: 'When the visitor wants to cancel an order',
  inputs: [{ name: 'order_id', type: 'string', description: '', required: true, enum: [], source: 'model' }],
  method: 'POST',
  url: 'https://api.example.com/orders/{order_id}/cancel',
  query: [],
  headers: [{ name: 'X-Api-Key', value: '{secret.API_KEY}' }],
  body: '',
  secrets: [{ name: 'API_KEY', hint: '9876' }],
  responseFields: ['order.status'],
  timeoutMs: 10000,
  maxResponseBytes: 262144,
  confirm: true,
  identifiedOnly: true,
  createdAt: '2026-12-01T10:00:00.000Z',
  updatedAt: '2026-12-01T10:00:00.000Z',
};

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const fetchMock = vi.fn<typeof fetch>();
/** The requests the card sent, as method, path and parsed body. */
const sent = () =>
  fetchMock.mock.calls.map(([url, init]) => ({
    method: init?.method ?? 'GET',
    url: String(url),
    body: init?.body ? (JSON.parse(String(init.body)) as unknown) : undefined,
  }));

beforeEach(async () => {
  // The test setup lists no actions for the page's tests; this card's tests read the real call.
  const actual = await vi.importActual<typeof api>('../api/actions-api');
  vi.spyOn(api, 'listActions').mockImplementation(actual.listActions);
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  fetchMock.mockReset();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function asMember(permissions: string[]) {
  const workspace = { id: 'ws_1', name: 'Acme', personal: false, role: 'VIEWER', permissions } as unknown as Workspace;
  const state: WorkspaceState = {
    workspaces: [workspace],
    current: workspace,
    loading: false,
    error: null,
    noWorkspace: false,
    key: 'ws_1',
    select: async () => undefined,
    refresh: async () => undefined,
    forget: async () => undefined,
  };
  return ({ children }: { children: React.ReactNode }) => <WorkspaceContext.Provider value={state}>{children}</WorkspaceContext.Provider>;
}

describe('ActionsCard', () => {
  it('lists the actions with their method, URL and badges', async () => {
    fetchMock.mockResolvedValueOnce(json([action]));
    render(<ActionsCard chatbotId="bot_1" />);
    const item = await screen.findByRole('region', { name: 'Action cancel_order' });
    expect(within(item).getByText('https://api.example.com/orders/{order_id}/cancel')).toBeTruthy();
    expect(within(item).getByText('POST')).toBeTruthy();
    expect(within(item).getByText('Visitor confirms')).toBeTruthy();
    expect(within(item).getByText('Identified visitors only')).toBeTruthy();
    expect(within(item).getByRole('button', { name: 'Edit' })).toBeTruthy();
    expect(sent()[0]).toEqual({ method: 'GET', url: '/api/chatbot/bot_1/actions', body: undefined });
  });

  it('shows no editing controls to a member who may not change the chatbot, and the log only to one who reads conversations', async () => {
    fetchMock.mockResolvedValueOnce(json([action]));
    const { unmount } = render(<ActionsCard chatbotId="bot_1" />, { wrapper: asMember(['workspace:read']) });
    const hidden = await screen.findByRole('region', { name: 'Action cancel_order' });
    expect(within(hidden).queryByRole('button', { name: 'Recent calls' })).toBeNull();
    unmount();
    fetchMock.mockResolvedValueOnce(json([action]));
    render(<ActionsCard chatbotId="bot_1" />, { wrapper: asMember(['workspace:read', 'conversations:read']) });
    const item = await screen.findByRole('region', { name: 'Action cancel_order' });
    expect(within(item).queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(within(item).queryByRole('button', { name: 'Delete' })).toBeNull();
    expect(within(item).queryByRole('button', { name: 'Test' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add action' })).toBeNull();
    expect(within(item).getByRole('button', { name: 'Recent calls' })).toBeTruthy();
  });

  it('adds an action: the definition sent, confirm on for a POST by default, the list read again', async () => {
    fetchMock.mockResolvedValueOnce(json([]));
    render(<ActionsCard chatbotId="bot_1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Add action' }));
    const form = screen.getByRole('form', { name: 'Add an action' });
    fireEvent.change(within(form).getByLabelText('Name'), { target: { value: 'cancel_order' } });
    fireEvent.change(within(form).getByLabelText('When to use'), { target: { value: 'When the visitor wants to cancel an order' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add input' }));
    fireEvent.change(within(form).getByLabelText('Input 1 name'), { target: { value: 'order_id' } });
    fireEvent.click(within(form).getByLabelText('Required'));
    fireEvent.change(within(form).getByLabelText('Method'), { target: { value: 'POST' } });
    fireEvent.change(within(form).getByLabelText('URL'), { target: { value: 'https://api.example.com/orders/{order_id}/cancel' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add header' }));
    fireEvent.change(within(form).getByLabelText('Headers 1 name'), { target: { value: 'X-Api-Key' } });
    fireEvent.change(within(form).getByLabelText('Headers 1 value'), { target: { value: '{secret.API_KEY}' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add secret' }));
    fireEvent.change(within(form).getByLabelText('Secret 1 name'), { target: { value: 'API_KEY' } });
    fireEvent.change(within(form).getByLabelText('Secret 1 value'), { target: { value: 'sk_live_9876' } });
    fireEvent.change(within(form).getByLabelText('Fields the bot may read'), { target: { value: 'order.status, order.id' } });
    expect((within(form).getByLabelText('Visitor confirms first') as HTMLInputElement).checked).toBe(true);

    fetchMock.mockResolvedValueOnce(json(action, 201)).mockResolvedValueOnce(json([action]));
    fireEvent.click(within(form).getByRole('button', { name: 'Add action' }));
    await screen.findByRole('region', { name: 'Action cancel_order' });
    expect(screen.queryByRole('form', { name: 'Add an action' })).toBeNull();
    expect(sent()[1]).toEqual({
      method: 'POST',
      url: '/api/chatbot/bot_1/actions',
      body: {
        definition: {
          name: 'cancel_order',
          whenToUse: 'When the visitor wants to cancel an order',
          inputs: [{ name: 'order_id', type: 'string', description: '', required: true, enum: [], source: 'model' }],
          method: 'POST',
          url: 'https://api.example.com/orders/{order_id}/cancel',
          query: [],
          headers: [{ name: 'X-Api-Key', value: '{secret.API_KEY}' }],
          body: '',
          secrets: [{ name: 'API_KEY', value: 'sk_live_9876' }],
          responseFields: ['order.status', 'order.id'],
          timeoutMs: 0,
          maxResponseBytes: 0,
          confirm: true,
          identifiedOnly: false,
        },
      },
    });
    expect(sent()[2]).toMatchObject({ method: 'GET', url: '/api/chatbot/bot_1/actions' });
  });

  it("shows the service's refusal as it comes, and keeps the form open", async () => {
    fetchMock.mockResolvedValueOnce(json([]));
    render(<ActionsCard chatbotId="bot_1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Add action' }));
    const form = screen.getByRole('form', { name: 'Add an action' });
    fireEvent.change(within(form).getByLabelText('Name'), { target: { value: 'lookup' } });
    fetchMock.mockResolvedValueOnce(json({ message: 'The URL must be a valid https:// address' }, 400));
    fireEvent.click(within(form).getByRole('button', { name: 'Add action' }));
    expect((await within(form).findByRole('alert')).textContent).toBe('The URL must be a valid https:// address');
    expect(screen.getByRole('form', { name: 'Add an action' })).toBeTruthy();
  });

  it('keeps a stored secret when edited without a new value, showing its last four', async () => {
    fetchMock.mockResolvedValueOnce(json([action]));
    render(<ActionsCard chatbotId="bot_1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Edit' }));
    const form = screen.getByRole('form', { name: 'Edit action cancel_order' });
    expect(within(form).getByText('Stored: ends in 9876. Leave empty to keep it.')).toBeTruthy();
    fetchMock.mockResolvedValueOnce(json(action)).mockResolvedValueOnce(json([action]));
    fireEvent.click(within(form).getByRole('button', { name: 'Save action' }));
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Edit action cancel_order' })).toBeNull());
    const put = sent()[1] as { method: string; url: string; body: { definition: api.ActionDefinitionInput } };
    expect(put.method).toBe('PUT');
    expect(put.url).toBe('/api/chatbot/bot_1/actions/act_1');
    expect(put.body.definition.secrets).toEqual([{ name: 'API_KEY', value: '' }]);
    expect(put.body.definition.confirm).toBe(true);
    expect(put.body.definition.identifiedOnly).toBe(true);
  });

  it('Test sends the sample inputs and shows the masked request and what the bot reads', async () => {
    fetchMock.mockResolvedValueOnce(json([action]));
    render(<ActionsCard chatbotId="bot_1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Test' }));
    const test = screen.getByRole('form', { name: 'Test cancel_order' });
    fireEvent.change(within(test).getByLabelText('order_id'), { target: { value: '1042' } });
    fetchMock.mockResolvedValueOnce(
      json({
        status: 'ok',
        error: null,
        httpStatus: 200,
        durationMs: 42,
        request: { method: 'POST', url: 'https://api.example.com/orders/1042/cancel', headers: { 'X-Api-Key': '••••••' }, body: '' },
        result: JSON.stringify({ 'order.status': 'cancelled' }),
        fieldsRead: ['order.status'],
      }),
    );
    fireEvent.click(within(test).getByRole('button', { name: 'Run test' }));
    const result = await within(test).findByRole('group', { name: 'Test result' });
    expect(sent()[1]).toEqual({ method: 'POST', url: '/api/chatbot/bot_1/actions/act_1/test', body: { inputs: { order_id: '1042' } } });
    expect(result.textContent).toContain('POST https://api.example.com/orders/1042/cancel');
    expect(result.textContent).toContain('X-Api-Key: ••••••');
    expect(result.textContent).not.toContain('sk_live');
    expect(result.textContent).toContain('"order.status": "cancelled"');
    expect(result.textContent).toContain('Fields read: order.status');
    expect(result.textContent).toContain('HTTP 200');
  });

  it("Test shows the action's error", async () => {
    fetchMock.mockResolvedValueOnce(json([action]));
    render(<ActionsCard chatbotId="bot_1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Test' }));
    const test = screen.getByRole('form', { name: 'Test cancel_order' });
    fetchMock.mockResolvedValueOnce(
      json({
        status: 'refused',
        error: 'The input "order_id" is required',
        httpStatus: null,
        durationMs: 0,
        request: { method: '', url: '', headers: {}, body: '' },
        result: '',
        fieldsRead: [],
      }),
    );
    fireEvent.click(within(test).getByRole('button', { name: 'Run test' }));
    const result = await within(test).findByRole('group', { name: 'Test result' });
    expect(within(result).getByRole('alert').textContent).toBe('The input "order_id" is required');
    expect(within(result).queryByText('What the bot reads')).toBeNull();
  });

  it('shows the latest calls with time, status, duration, fields read and masked inputs', async () => {
    fetchMock.mockResolvedValueOnce(json([action]));
    render(<ActionsCard chatbotId="bot_1" />);
    fetchMock.mockResolvedValueOnce(
      json([
        {
          id: 'call_1',
          actionId: 'act_1',
          actionName: 'cancel_order',
          sessionId: 's1',
          source: 'chat',
          inputs: { order_id: '1042', email: '•••' },
          status: 'ok',
          error: null,
          httpStatus: 200,
          durationMs: 37,
          fieldsRead: ['order.status'],
          createdAt: '2026-12-01T10:05:00.000Z',
        },
      ]),
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Recent calls' }));
    const table = await screen.findByRole('table', { name: 'Latest calls' });
    expect(sent()[1]).toMatchObject({ method: 'GET', url: '/api/chatbot/bot_1/actions/calls?actionId=act_1&limit=10' });
    const row = within(table).getAllByRole('row')[1]!;
    expect(row.textContent).toContain('ok · HTTP 200');
    expect(row.textContent).toContain('37 ms');
    expect(row.textContent).toContain('order.status');
    expect(row.textContent).toContain('{"order_id":"1042","email":"•••"}');
  });

  it('deletes an action after the confirm dialog', async () => {
    fetchMock.mockResolvedValueOnce(json([action]));
    render(<ActionsCard chatbotId="bot_1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete cancel_order?' });
    fetchMock.mockResolvedValueOnce(json({ message: 'Action deleted' })).mockResolvedValueOnce(json([]));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await screen.findByText('No actions yet.');
    expect(sent()[1]).toMatchObject({ method: 'DELETE', url: '/api/chatbot/bot_1/actions/act_1' });
  });
});
