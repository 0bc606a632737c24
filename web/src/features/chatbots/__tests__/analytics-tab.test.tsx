import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sampleAnalytics, sampleUnanswered } from '../../../test/analytics-fixtures';
import { proUser, sampleChatbot } from '../../../test/chatbot-fixtures';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingAnswers } from '../../../test/usage-fixtures';
import { sampleWorkspace, workspacesAnswer } from '../../../test/workspace-fixtures';
import { REDACTED_QUESTIONS_NOTE } from '../components/top-questions-card';
import { detailChatbot, knowledgeBaseOf } from './detail-page-fixtures';

// jsdom has no layout: give the charts a size so recharts draws, as a browser would.
class FixedSizeObserver {
  private readonly callback: ResizeObserverCallback;
  constructor(callback: ResizeObserverCallback) {
    this.callback = callback;
  }
  observe(target: Element) {
    this.callback(
      [{ target, contentRect: { width: 600, height: 260 } } as unknown as ResizeObserverEntry],
      this as unknown as ResizeObserver,
    );
  }
  unobserve() {}
  disconnect() {}
}

function openAnalytics(user: typeof sampleUser | typeof proUser, handlers: Record<string, Handler> = {}) {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    ...billingAnswers,
    Me: () => ({ data: { me: user } }),
    Chatbots: () => ({ data: { chatbots: [sampleChatbot({ openUnansweredQuestions: 1 })] } }),
    Chatbot: () => ({ data: { chatbot: { ...detailChatbot({ openUnansweredQuestions: 1 }), knowledgeBase: knowledgeBaseOf() } } }),
    ChatbotAnalytics: () => ({ data: { analytics: sampleAnalytics({ full: user.subscription === 'pro' }) } }),
    UnansweredQuestions: () => ({ data: { unansweredQuestions: [sampleUnanswered()] } }),
    ...handlers,
  });
  const view = renderApp('/chatbots/c1', mock.link);
  return { ...mock, ...view };
}

async function openTab() {
  fireEvent.click(await screen.findByRole('tab', { name: 'Analytics' }));
}

const ops = (calls: ReturnType<typeof mockLink>['calls'], name: string) => calls.filter((c) => c.operationName === name);
const figure = (label: string) => screen.getByRole('region', { name: label });

describe('Analytics tab of the chatbot detail page', () => {
  beforeEach(() => vi.stubGlobal('ResizeObserver', FixedSizeObserver));
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('loads only once opened, then shows a pro owner the totals, the daily chart, busiest hours and most asked questions', async () => {
    vi.useFakeTimers({ now: new Date('2025-06-30T22:00:00Z'), toFake: ['Date'] });
    const { calls } = openAnalytics(proUser);
    await screen.findByRole('heading', { level: 1, name: 'support bot' });
    expect(ops(calls, 'ChatbotAnalytics')).toHaveLength(0);
    await openTab();

    expect(await screen.findByRole('region', { name: 'Conversations' })).toBeTruthy();
    expect(ops(calls, 'ChatbotAnalytics')[0].variables).toEqual({ chatbotId: 'c1', startDate: '2025-06-01', endDate: '2025-06-30' });
    expect(screen.getByText('Jun 1, 2025 – Jun 30, 2025 (UTC)')).toBeTruthy();
    expect(within(figure('Conversations')).getByText('12')).toBeTruthy();
    expect(within(figure('Messages')).getByText('1,234')).toBeTruthy();
    expect(within(figure('Unique visitors')).getByText('9')).toBeTruthy();
    expect(within(figure('Answered from knowledge')).getByText('73%')).toBeTruthy();
    expect(within(figure('Answered from knowledge')).getByText('900 of 1,234 messages')).toBeTruthy();
    expect(within(figure('Ratings')).getByLabelText('5 thumbs up')).toBeTruthy();
    expect(within(figure('Ratings')).getByLabelText('2 thumbs down')).toBeTruthy();
    expect(within(figure('Ratings')).getByText('71% positive')).toBeTruthy();
    expect(within(figure('Median answer time')).getByText('1.8 s')).toBeTruthy();

    await waitFor(() => expect(document.querySelectorAll('#chatbot-panel-analytics svg.recharts-surface')).toHaveLength(2));
    const captions = [...document.querySelectorAll('#chatbot-panel-analytics figcaption')].map((c) => c.textContent);
    expect(captions).toEqual([
      'Conversations per day (UTC) over 3 days, 12 in all; most on Jun 3, 2025 (8).',
      'Messages per hour of the day (UTC); busiest 14:00 with 300.',
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'Messages' }));
    expect(screen.getByRole('button', { name: 'Messages' }).getAttribute('aria-pressed')).toBe('true');
    await waitFor(() => expect(document.querySelector('#chatbot-panel-analytics figcaption')?.textContent).toContain('Messages per day'));

    const top = screen.getByRole('list', { name: 'Most asked questions' });
    expect(
      within(top)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['1.When do you open?41', '2.Do you ship abroad?7']);
    expect(screen.queryByText(REDACTED_QUESTIONS_NOTE)).toBeNull();
    expect(screen.queryByRole('link', { name: 'Upgrade to Pro' })).toBeNull();
    expect(await screen.findByRole('list', { name: 'Unanswered questions' })).toBeTruthy();
  });

  it('asks again for the new days when the range changes', async () => {
    vi.useFakeTimers({ now: new Date('2025-06-30T22:00:00Z'), toFake: ['Date'] });
    const { calls } = openAnalytics(proUser);
    await openTab();
    await screen.findByRole('region', { name: 'Conversations' });
    const range = screen.getByLabelText('Time range') as HTMLSelectElement;
    expect([...range.options].map((o) => o.text)).toEqual(['Last 7 days', 'Last 30 days', 'Last 90 days', 'Last 12 months']);
    expect(range.value).toBe('30d');

    fireEvent.change(range, { target: { value: '7d' } });
    await waitFor(() => expect(ops(calls, 'ChatbotAnalytics')).toHaveLength(2));
    expect(ops(calls, 'ChatbotAnalytics')[1].variables).toEqual({ chatbotId: 'c1', startDate: '2025-06-24', endDate: '2025-06-30' });
    fireEvent.change(range, { target: { value: '12m' } });
    await waitFor(() => expect(ops(calls, 'ChatbotAnalytics')).toHaveLength(3));
    expect(ops(calls, 'ChatbotAnalytics')[2].variables).toEqual({ chatbotId: 'c1', startDate: '2024-07-01', endDate: '2025-06-30' });
    expect(await screen.findByText('Jul 1, 2024 – Jun 30, 2025 (UTC)')).toBeTruthy();
  });

  it('shows a free owner the totals and an upgrade prompt instead of the rest, and no unanswered questions', async () => {
    const { calls } = openAnalytics(sampleUser);
    await openTab();
    expect(await screen.findByRole('region', { name: 'Conversations' })).toBeTruthy();
    const prompt = screen.getByRole('region', { name: 'Advanced analytics' });
    expect(within(prompt).getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/pricing');
    expect(screen.queryByText('Busiest hours')).toBeNull();
    expect(screen.queryByText('Most asked questions')).toBeNull();
    expect(screen.queryByText('Unanswered questions')).toBeNull();
    expect(ops(calls, 'UnansweredQuestions')).toHaveLength(0);
  });

  it('tells a viewer that contact details are hidden for their role, and lists the questions as the server masked them', async () => {
    localStorage.setItem('workspace', 'w-team');
    const { calls } = openAnalytics(proUser, {
      Workspaces: workspacesAnswer(sampleWorkspace({ role: 'VIEWER' })),
      ChatbotAnalytics: () => ({
        data: {
          analytics: sampleAnalytics({
            topQuestions: [{ question: 'Call me on [phone] or mail [email] about my order', count: 2 }],
            questionsRedacted: true,
          }),
        },
      }),
    });
    await openTab();
    const top = await screen.findByRole('list', { name: 'Most asked questions' });
    expect(
      within(top)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['1.Call me on [phone] or mail [email] about my order2']);
    expect(screen.getByText(REDACTED_QUESTIONS_NOTE)).toBeTruthy();
    // A viewer does not read the unanswered questions at all.
    expect(screen.queryByText('Unanswered questions')).toBeNull();
    expect(ops(calls, 'UnansweredQuestions')).toHaveLength(0);
  });

  it("shows the server's error with a retry", async () => {
    let fail = true;
    openAnalytics(proUser, {
      ChatbotAnalytics: () =>
        fail ? graphqlError('Service temporarily unavailable', 'UNAVAILABLE') : { data: { analytics: sampleAnalytics() } },
    });
    await openTab();
    expect((await screen.findByRole('alert')).textContent).toContain('Service temporarily unavailable');
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByRole('region', { name: 'Conversations' })).toBeTruthy();
  });
});

describe('Unanswered questions', () => {
  beforeEach(() => vi.stubGlobal('ResizeObserver', FixedSizeObserver));
  afterEach(() => vi.unstubAllGlobals());

  it('counts the questions per reason and filters the list by one, from the chips or the select', async () => {
    openAnalytics(proUser, {
      UnansweredQuestions: () => ({
        data: {
          unansweredQuestions: [
            sampleUnanswered(),
            sampleUnanswered({ id: 'q2', question: 'Can you book a flight?', count: 2, reason: 'not_supported' }),
            sampleUnanswered({ id: 'q3', question: 'Where is my order 12?', count: 1, reason: 'action_failed' }),
          ],
        },
      }),
    });
    await openTab();
    const reasons = await screen.findByRole('list', { name: 'Questions by reason' });
    expect(
      within(reasons)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Missing knowledge 6', 'Not supported 2', 'Action failed 1']);
    const listed = () => within(screen.getByRole('list', { name: 'Unanswered questions' })).getAllByRole('listitem', { name: /\?$/ });
    expect(listed()).toHaveLength(3);
    expect(within(screen.getByRole('listitem', { name: 'Can you book a flight?' })).getByText('Not supported')).toBeTruthy();

    fireEvent.click(within(reasons).getByRole('button', { name: 'Not supported 2' }));
    expect(listed().map((li) => li.getAttribute('aria-label'))).toEqual(['Can you book a flight?']);
    fireEvent.change(screen.getByLabelText('Reason'), { target: { value: 'action_failed' } });
    expect(listed().map((li) => li.getAttribute('aria-label'))).toEqual(['Where is my order 12?']);
    fireEvent.change(screen.getByLabelText('Reason'), { target: { value: 'limit_reached' } });
    expect(screen.getByText('No open question has this reason.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Reason'), { target: { value: '' } });
    expect(listed()).toHaveLength(3);
  });

  it('shows a group with its count, examples and last seen, and answers it with a prefilled question', async () => {
    const { calls } = openAnalytics(proUser, {
      AnswerUnansweredQuestion: ({ variables }) => ({
        data: { answerUnansweredQuestion: sampleUnanswered({ id: variables.id, status: 'resolved', answerEntryId: 'e9' }) },
      }),
    });
    await openTab();
    const group = await screen.findByRole('listitem', { name: 'Do you deliver on Sundays?' });
    expect(ops(calls, 'UnansweredQuestions')[0].variables).toEqual({ chatbotId: 'c1', status: 'open' });
    expect(within(group).getByText('Asked 6 times')).toBeTruthy();
    expect(within(group).getByText(/^Last asked /)).toBeTruthy();
    expect(
      within(within(group).getByRole('list', { name: 'Examples' }))
        .getAllByRole('listitem')
        .map((e) => e.textContent),
    ).toEqual(['Sunday delivery?', 'Can I get it delivered on a sunday']);
    expect(screen.getByText('1 open')).toBeTruthy();

    fireEvent.click(within(group).getByRole('button', { name: 'Answer' }));
    const form = within(group).getByRole('form', { name: 'Answer "Do you deliver on Sundays?"' });
    expect((within(form).getByLabelText('Question') as HTMLInputElement).value).toBe('Do you deliver on Sundays?');
    const save = within(form).getByRole('button', { name: 'Save answer' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.change(within(form).getByLabelText('Answer'), { target: { value: ' Yes, from 10 to 4. ' } });
    fireEvent.click(save);

    expect(await within(group).findByText('Resolved')).toBeTruthy();
    expect(ops(calls, 'AnswerUnansweredQuestion')[0].variables).toEqual({
      chatbotId: 'c1',
      id: 'q1',
      question: 'Do you deliver on Sundays?',
      answer: 'Yes, from 10 to 4.',
    });
    expect(within(group).queryByRole('button', { name: 'Answer' })).toBeNull();
    expect(within(group).queryByRole('form')).toBeNull();
    expect(screen.queryByText('1 open')).toBeNull();
    // The chatbot is asked for again so its knowledge shows the new Q&A pair.
    await waitFor(() => expect(ops(calls, 'Chatbot').length).toBeGreaterThan(1));
  });

  it('adds the question to the tests, as a case from Analytics', async () => {
    const { calls } = openAnalytics(proUser, {
      SaveTestCase: ({ variables }) => {
        const input = variables.input as { question: string; source: string; checks: { kind: string; phrases?: string[] }[] };
        return {
          data: {
            saveTestCase: {
              __typename: 'TestCase',
              id: 't1',
              question: input.question,
              expectedAnswer: '',
              source: input.source,
              createdAt: '2026-12-02T10:00:00.000Z',
              earlierTurns: [],
              checks: input.checks.map((c) => ({
                __typename: 'TestCheck',
                kind: c.kind,
                phrases: c.phrases ?? [],
                entryId: null,
              })),
            },
          },
        };
      },
    });
    await openTab();
    const group = await screen.findByRole('listitem', { name: 'Do you deliver on Sundays?' });
    fireEvent.click(within(group).getByRole('button', { name: 'Add to tests' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add to tests' });
    expect((within(dialog).getByLabelText('Question') as HTMLInputElement).value).toBe('Do you deliver on Sundays?');
    fireEvent.change(within(dialog).getByLabelText('Must contain'), { target: { value: 'sunday' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Add to tests' }));
    expect(await within(group).findByText('Added to tests')).toBeTruthy();
    expect(ops(calls, 'SaveTestCase')[0].variables.input).toMatchObject({
      question: 'Do you deliver on Sundays?',
      source: 'analytics',
      checks: [{ kind: 'contains', phrases: ['sunday'] }],
    });
  });

  it("keeps the form and shows the server's error when answering fails", async () => {
    openAnalytics(proUser, { AnswerUnansweredQuestion: () => graphqlError('Knowledge entry is too long', 'BAD_USER_INPUT') });
    await openTab();
    const group = await screen.findByRole('listitem', { name: 'Do you deliver on Sundays?' });
    fireEvent.click(within(group).getByRole('button', { name: 'Answer' }));
    fireEvent.change(within(group).getByLabelText('Answer'), { target: { value: 'Yes.' } });
    fireEvent.click(within(group).getByRole('button', { name: 'Save answer' }));
    expect((await within(group).findByRole('alert')).textContent).toBe('Knowledge entry is too long');
    expect((within(group).getByLabelText('Answer') as HTMLTextAreaElement).value).toBe('Yes.');
  });

  it('dismisses a group', async () => {
    const { calls } = openAnalytics(proUser, {
      DismissUnansweredQuestion: ({ variables }) => ({
        data: { dismissUnansweredQuestion: sampleUnanswered({ id: variables.id, status: 'dismissed' }) },
      }),
    });
    await openTab();
    const group = await screen.findByRole('listitem', { name: 'Do you deliver on Sundays?' });
    fireEvent.click(within(group).getByRole('button', { name: 'Dismiss' }));
    expect(await within(group).findByText('Dismissed')).toBeTruthy();
    expect(ops(calls, 'DismissUnansweredQuestion')[0].variables).toEqual({ chatbotId: 'c1', id: 'q1' });
    expect(within(group).queryByRole('button', { name: 'Dismiss' })).toBeNull();
  });

  it('says when nothing is waiting', async () => {
    openAnalytics(proUser, { UnansweredQuestions: () => ({ data: { unansweredQuestions: [] } }) });
    await openTab();
    expect(await screen.findByText('Nothing waiting')).toBeTruthy();
  });
});
