import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { downloadBlob } from '../../../lib/download-file';
import { sampleChatbot } from '../../../test/chatbot-fixtures';
import { openAsMember, sampleWorkspace } from '../../../test/workspace-fixtures';
import { conversationLink, leadExportPath, leadsVariables } from '../leads-filter';

vi.mock('../../../lib/download-file', () => ({ downloadBlob: vi.fn(), downloadTextFile: vi.fn() }));

function lead(id: string, overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'Lead' as const,
    id,
    chatbotId: 'c1',
    conversationId: `conv-${id}`,
    name: 'Ada Lovelace' as string | null,
    email: 'ada@example.com' as string | null,
    phone: null as string | null,
    consented: true,
    consentText: 'I agree.' as string | null,
    source: 'form',
    createdAt: '2025-03-02T10:00:00.000Z',
    channel: 'web',
    channelContact: null as string | null,
    ...overrides,
  };
}

const page = (leads: ReturnType<typeof lead>[], nextCursor: string | null) => ({
  data: { leads: { __typename: 'LeadPage' as const, leads, nextCursor } },
});

const chatbots = () => ({ data: { chatbots: [sampleChatbot(), sampleChatbot({ id: 'c2', uniqueId: 'pub-c2', name: 'sales bot' })] } });

describe('Leads page', () => {
  it('lists the leads newest first with their chatbot and conversation, and loads more', async () => {
    const { calls } = openAsMember('/leads', sampleWorkspace({ role: 'AGENT' }), {
      Chatbots: chatbots,
      Leads: ({ variables }) =>
        variables.after === 'n1'
          ? page(
              [
                lead('l3', {
                  chatbotId: 'gone',
                  name: null,
                  consentText: null,
                  source: 'handoff_timeout',
                  channel: 'telegram',
                  channelContact: '8403',
                }),
              ],
              null,
            )
          : page([lead('l1'), lead('l2', { chatbotId: 'c2', phone: '+44 20 7946 0958' })], 'n1'),
    });
    expect(await screen.findByRole('heading', { name: 'Leads' })).toBeTruthy();
    const table = await screen.findByRole('table');
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3));
    expect(within(table).getByText('sales bot')).toBeTruthy();
    expect(within(table).getByText('+44 20 7946 0958')).toBeTruthy();
    const links = within(table).getAllByRole('link', { name: 'Open conversation' });
    expect(links[0].getAttribute('href')).toBe('/chatbots/c1?conversation=conv-l1');
    expect(document.title).toBe('Leads — Parley');
    // The header marks where the person is: Leads, not Dashboard.
    const header = within(screen.getByRole('banner'));
    expect(header.getByRole('link', { name: 'Leads' }).getAttribute('aria-current')).toBe('page');
    expect(header.getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(screen.getByRole('table')).getAllByRole('row')).toHaveLength(4));
    expect(within(screen.getByRole('table')).getByText('Deleted chatbot')).toBeTruthy();
    expect(within(screen.getByRole('table')).getByText('Nobody answered')).toBeTruthy();
    // Each lead's channel: the web's, and a Telegram user's with their chat id.
    expect(within(screen.getByRole('table')).getAllByText('Web')).toHaveLength(2);
    expect(within(screen.getByRole('table')).getByText('Telegram')).toBeTruthy();
    expect(within(screen.getByRole('table')).getByText('8403')).toBeTruthy();
    // A phone's list holds the same leads, the contact first.
    const list = within(screen.getByRole('list', { name: 'Leads' }));
    expect(list.getAllByRole('listitem')).toHaveLength(3);
    expect(list.getAllByText('Ada Lovelace')).toHaveLength(2);
    expect(list.getAllByText('ada@example.com')).toHaveLength(3);
    const asked = calls.filter((c) => c.operationName === 'Leads');
    expect(asked[0].variables).toEqual({ first: 50 });
    expect(asked[1].variables).toEqual({ first: 50, after: 'n1' });
  });

  it('filters by chatbot and dates', async () => {
    const { calls } = openAsMember('/leads', sampleWorkspace(), { Chatbots: chatbots, Leads: () => page([], null) });
    expect(await screen.findByText('No leads yet.')).toBeTruthy();
    await waitFor(() => expect(screen.getByRole('option', { name: 'sales bot' })).toBeTruthy());
    fireEvent.change(screen.getByLabelText('Chatbot'), { target: { value: 'c2' } });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2025-03-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2025-03-31' } });
    expect(await screen.findByText('No leads match the filter.')).toBeTruthy();
    await waitFor(() =>
      expect(calls.filter((c) => c.operationName === 'Leads').at(-1)?.variables).toEqual({
        chatbotId: 'c2',
        startDate: '2025-03-01',
        endDate: '2025-03-31',
        first: 50,
      }),
    );
  });

  it('tells a viewer it is not allowed, without asking', async () => {
    const { calls } = openAsMember('/leads', sampleWorkspace({ role: 'VIEWER' }));
    expect(await screen.findByRole('heading', { name: 'Not allowed' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Export CSV' })).toBeNull();
    expect(calls.some((c) => c.operationName === 'Leads')).toBe(false);
    // And the header has no Leads link for them.
    expect(screen.queryByRole('link', { name: 'Leads' })).toBeNull();
  });
});

describe('Leads page: export', () => {
  const fetchMock = vi.fn<typeof fetch>();
  beforeEach(() => vi.stubGlobal('fetch', fetchMock));
  afterEach(() => {
    vi.unstubAllGlobals();
    fetchMock.mockReset();
    vi.mocked(downloadBlob).mockClear();
  });

  it('downloads the filtered leads as leads.csv with the token and the workspace', async () => {
    fetchMock.mockResolvedValue(new Response('created_at,lead_id\r\n', { status: 200 }));
    openAsMember('/leads', sampleWorkspace(), { Chatbots: chatbots, Leads: () => page([lead('l1')], null) });
    await screen.findByRole('table');
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2025-03-01' } });
    fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(downloadBlob).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/leads/export?startDate=2025-03-01');
    expect(new Headers(init?.headers).get('authorization')).toBe('Bearer good');
    expect(new Headers(init?.headers).get('x-workspace-id')).toBe('w-team');
    const [savedAs, blob] = vi.mocked(downloadBlob).mock.calls[0]!;
    expect(savedAs).toBe('leads.csv');
    expect(await blob.text()).toBe('created_at,lead_id\r\n');
  });

  it("shows the server's message when the export is refused", async () => {
    fetchMock.mockResolvedValue(new Response(JSON.stringify({ message: 'Chatbot not found' }), { status: 404 }));
    openAsMember('/leads', sampleWorkspace(), { Chatbots: chatbots, Leads: () => page([], null) });
    await screen.findByText('No leads yet.');
    fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Chatbot not found');
    expect(downloadBlob).not.toHaveBeenCalled();
  });
});

describe('leads filter', () => {
  it('sends only what is set', () => {
    expect(leadsVariables({ chatbotId: '', startDate: '', endDate: '' })).toEqual({});
    expect(leadExportPath({ chatbotId: 'c 1', startDate: '', endDate: '2025-01-02' })).toBe(
      '/api/leads/export?chatbotId=c+1&endDate=2025-01-02',
    );
    expect(conversationLink({ chatbotId: 'c1', conversationId: 'a/b' })).toBe('/chatbots/c1?conversation=a%2Fb');
  });
});
