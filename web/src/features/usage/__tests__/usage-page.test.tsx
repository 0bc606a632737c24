import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { downloadTextFile } from '../../../lib/download-file';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { usageReport, usageRequest } from '../../../test/usage-fixtures';

vi.mock('../../../lib/download-file', () => ({ downloadTextFile: vi.fn() }));
// recharts needs a real layout engine; the page's part is which points it hands the chart.
vi.mock('../components/daily-cost-chart', () => ({
  default: ({ points }: { points: Array<{ date: string; cost: number }> }) => (
    <ol aria-label="Cost per day points">
      {points.map((p) => (
        <li key={p.date}>{`${p.date} ${p.cost}`}</li>
      ))}
    </ol>
  ),
}));

const NOW = new Date(2025, 5, 15, 12, 0, 0);

function openUsage(usage: Handler) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    Me: () => ({ data: { me: sampleUser } }),
    Chatbots: () => ({ data: { chatbots: [] } }),
    UsageReport: usage,
  });
  return { ...mock, ...renderApp('/usage', mock.link) };
}

const twoRequests = () =>
  usageReport(
    [
      usageRequest({
        requestId: 'r2',
        timestamp: '2025-06-14T09:00:00.000Z',
        totalCost: '0.0004012',
        promptTokens: 1000,
        completionTokens: 200,
        totalTokens: 1200,
      }),
      usageRequest({
        requestId: 'r1',
        timestamp: '2025-06-12T09:00:00.000Z',
        chatbot: null,
        model: null,
        totalCost: '0.000155',
        promptTokens: 1400,
        completionTokens: 400,
        totalTokens: 1800,
      }),
    ],
    {
      totals: {
        totalCost: '0.0005562',
        totalPromptCost: '0.0003',
        totalCompletionCost: '0.0002562',
        totalTokens: 3000,
        totalPromptTokens: 2400,
        totalCompletionTokens: 600,
        totalRequests: 2,
      },
      dailyUsage: [
        { date: '2025-06-12', totalCost: '0.000155', totalTokens: 1800, requests: 1 },
        { date: '2025-06-14', totalCost: '0.0004012', totalTokens: 1200, requests: 1 },
      ],
      usageByChatbot: [
        { chatbotId: 'gone', name: null, totalCost: '0.000155', requests: 1 },
        { chatbotId: 'c1', name: 'support bot', totalCost: '0.0004012', requests: 1 },
      ],
    },
  );

function usageCalls(calls: ReturnType<typeof mockLink>['calls']) {
  return calls.filter((c) => c.operationName === 'UsageReport').map((c) => c.variables);
}

describe('Usage page (/usage)', () => {
  beforeEach(() => {
    // Only Date is faked: the ranges are computed from "now", while Apollo and React keep real timers.
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.clearAllMocks();
  });

  it('shows "Loading usage data..." until the report arrives', async () => {
    let answer: ((value: ReturnType<Handler>) => void) | undefined;
    openUsage(() => new Promise((resolve) => (answer = resolve)));
    expect(await screen.findByText('Loading usage data...')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'Usage Details' })).toBeTruthy();
    // The page shows its loading text as it renders; the request reaches the link a moment later.
    await waitFor(() => expect(answer).toBeDefined());
    answer!({ data: { usage: twoRequests() } });
    expect(await screen.findByRole('heading', { name: 'Request History' })).toBeTruthy();
    expect(screen.queryByText('Loading usage data...')).toBeNull();
  });

  it('asks for the last 30 days by default, with a Back to Dashboard link', async () => {
    const { calls } = openUsage(() => ({ data: { usage: twoRequests() } }));
    await screen.findByRole('heading', { name: 'Request History' });
    expect(usageCalls(calls)).toEqual([{ startDate: new Date(2025, 4, 15, 12, 0, 0).toISOString(), endDate: NOW.toISOString() }]);
    expect((screen.getByLabelText('Time range') as HTMLSelectElement).value).toBe('month');
    expect(screen.getByRole('link', { name: /Back to Dashboard/ }).getAttribute('href')).toBe('/dashboard');
  });

  it('shows the empty state and disables Export CSV when there were no requests', async () => {
    openUsage(() => ({ data: { usage: usageReport([]) } }));
    expect(await screen.findByText('No usage data')).toBeTruthy();
    expect(screen.getByText("You haven't made any requests during this time period.")).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
    const exportButton = screen.getByRole('button', { name: 'Export CSV' }) as HTMLButtonElement;
    expect(exportButton.disabled).toBe(true);
    fireEvent.click(exportButton);
    expect(downloadTextFile).not.toHaveBeenCalled();
  });

  it('shows the totals, the request history with N/A, and amounts to 5 decimals', async () => {
    openUsage(() => ({ data: { usage: twoRequests() } }));
    const totalCost = await screen.findByRole('region', { name: 'Total Cost' });
    expect(within(totalCost).getByText('$0.00056')).toBeTruthy();
    const tokens = screen.getByRole('region', { name: 'Total Tokens' });
    expect(within(tokens).getByText('3,000')).toBeTruthy();
    expect(tokens.textContent).toContain('Input 2,400');
    expect(tokens.textContent).toContain('Output 600');
    const requests = screen.getByRole('region', { name: 'Requests' });
    expect(within(requests).getByText('2')).toBeTruthy();
    expect(requests.textContent).not.toContain('showing latest');

    const table = screen.getByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Date', 'Chatbot', 'Model', 'Input Tokens', 'Output Tokens', 'Total Tokens', 'Cost']);
    const rows = within(table).getAllByRole('row').slice(1);
    const cells = rows.map((row) =>
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    );
    expect(cells[0]?.slice(1)).toEqual(['support bot', 'GPT-4o mini', '1,000', '200', '1,200', '$0.00040']);
    expect(cells[1]?.slice(1)).toEqual(['N/A', 'N/A', '1,400', '400', '1,800', '$0.00016']);
    expect(cells[0]?.[0]).toMatch(/Jun 14, 2025/);
  });

  it('says "your key" of an answer on the workspace\'s own provider key, with its fee as the cost', async () => {
    openUsage(() => ({
      data: { usage: usageReport([usageRequest({ ownKey: true, totalCost: '0' }), usageRequest({ requestId: 'r2' })]) },
    }));
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows[0]?.textContent).toContain('GPT-4o miniyour key');
    expect(rows[0]?.textContent).toContain('$0.00000');
    expect(rows[1]?.textContent).not.toContain('your key');
  });

  it('breaks the cost down into input and output, and by chatbot', async () => {
    openUsage(() => ({ data: { usage: twoRequests() } }));
    const card = (await screen.findByRole('heading', { name: 'Cost Breakdown' })).closest('.rounded-2xl') as HTMLElement;
    expect(card.textContent).toContain('Input (prompt)$0.00030');
    expect(card.textContent).toContain('Output (completion)$0.00026');
    const byChatbot = within(card).getByRole('list', { name: 'Cost by chatbot' });
    expect(
      within(byChatbot)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['support bot$0.000401 request', 'N/A$0.000161 request']);
  });

  it('charts every day of the range, zero on days without usage', async () => {
    openUsage(() => ({ data: { usage: twoRequests() } }));
    const chart = await screen.findByRole('list', { name: 'Cost per day points' });
    const points = within(chart)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    // From the UTC day 30 days back to today's UTC day, inclusive.
    const first = new Date(2025, 4, 15, 12).toISOString().slice(0, 10);
    const last = NOW.toISOString().slice(0, 10);
    expect(points[0]).toBe(`${first} 0`);
    expect(points.at(-1)).toBe(`${last} 0`);
    expect(points).toHaveLength((Date.parse(last) - Date.parse(first)) / 86_400_000 + 1);
    expect(points).toContain('2025-06-12 0.000155');
    expect(points).toContain('2025-06-13 0');
    expect(points).toContain('2025-06-14 0.0004012');
  });

  it('says how many requests the range holds when the list is capped', async () => {
    const report = twoRequests();
    report.overallUsage.totalRequests = 5000;
    openUsage(() => ({ data: { usage: report } }));
    const requests = await screen.findByRole('region', { name: 'Requests' });
    expect(within(requests).getByText('5,000')).toBeTruthy();
    expect(requests.textContent).toContain('showing latest 2');
    expect(screen.getByText('Showing the latest 2 of 5,000 requests')).toBeTruthy();
  });

  it('asks again for the chosen range: last 7 days, last year', async () => {
    const { calls } = openUsage(({ variables }) => ({
      data: { usage: variables.startDate === new Date(2024, 5, 15, 12).toISOString() ? usageReport([]) : twoRequests() },
    }));
    await screen.findByRole('heading', { name: 'Request History' });

    fireEvent.change(screen.getByLabelText('Time range'), { target: { value: 'week' } });
    await waitFor(() => expect(usageCalls(calls)).toHaveLength(2));
    expect(usageCalls(calls)[1]).toEqual({ startDate: new Date(2025, 5, 8, 12).toISOString(), endDate: NOW.toISOString() });
    expect(await screen.findByRole('heading', { name: 'Request History' })).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Time range'), { target: { value: 'year' } });
    expect(await screen.findByText('No usage data')).toBeTruthy();
    expect(usageCalls(calls)[2]).toEqual({ startDate: new Date(2024, 5, 15, 12).toISOString(), endDate: NOW.toISOString() });
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('exports the listed requests as usage_data_{today}.csv', async () => {
    openUsage(() => ({ data: { usage: twoRequests() } }));
    await screen.findByRole('heading', { name: 'Request History' });
    fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(downloadTextFile).toHaveBeenCalledTimes(1);
    const [fileName, text, type] = vi.mocked(downloadTextFile).mock.calls[0] ?? [];
    expect(fileName).toBe('usage_data_2025-06-15.csv');
    expect(type).toBe('text/csv;charset=utf-8');
    expect(text).toBe(
      '\uFEFFDate,Chatbot,Model,Prompt Tokens,Completion Tokens,Total Tokens,Cost ($)\r\n' +
        '2025-06-14T09:00:00.000Z,support bot,GPT-4o mini,1000,200,1200,0.00040\r\n' +
        '2025-06-12T09:00:00.000Z,N/A,N/A,1400,400,1800,0.00016\r\n',
    );
  });

  it('shows the server message when the report fails, and tries again on request', async () => {
    let fail = true;
    const { calls } = openUsage(() =>
      fail ? graphqlError('startDate must be before endDate', 'BAD_USER_INPUT') : { data: { usage: twoRequests() } },
    );
    expect((await screen.findByRole('alert')).textContent).toContain('startDate must be before endDate');
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByRole('heading', { name: 'Request History' })).toBeTruthy();
    expect(usageCalls(calls)).toHaveLength(2);
  });
});

describe('Usage page route', () => {
  it('is protected: a signed-out visitor goes to /login', async () => {
    const { router } = renderApp('/usage', mockLink({}).link);
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it("is where the footer's Usage Details link leads", async () => {
    localStorage.setItem('token', 'good');
    const { router } = renderApp(
      '/',
      mockLink({ Me: () => ({ data: { me: sampleUser } }), UsageReport: () => ({ data: { usage: usageReport([]) } }) }).link,
    );
    fireEvent.click(await screen.findByRole('link', { name: 'Usage Details' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Usage Details' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/usage');
  });
});
