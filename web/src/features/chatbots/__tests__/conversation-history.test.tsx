import { fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { proUser, sampleChatbot } from '../../../test/chatbot-fixtures';
import { graphqlError, mockLink, sampleUser, type Handler } from '../../../test/mock-link';
import { billingAnswers } from '../../../test/usage-fixtures';
import { renderApp } from '../../../test/render-app';
import { detailChatbot, knowledgeBaseOf } from './detail-page-fixtures';

function sampleConversation(overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'Conversation' as const,
    id: 'conv-1',
    sessionId: 'abcdefgh12345',
    createdAt: '2025-03-04T10:00:00.000Z',
    updatedAt: '2025-03-04T10:05:00.000Z',
    userIp: '203.0.113.7',
    visitorId: null,
    visitorName: null,
    verifiedUserId: null,
    verifiedEmail: null,
    messageCount: 3,
    channel: 'web',
    ...overrides,
  };
}

let messageIds = 0;

function message(
  role: 'user' | 'assistant' | 'system' | 'agent' | 'note',
  content: string,
  timestamp: string | null = '2025-03-04T10:01:00.000Z',
  authorName: string | null = null,
  answered: { model: { id: string; displayName: string }; fallback: boolean } | null = null,
) {
  return {
    __typename: 'ChatMessage' as const,
    id: `m${++messageIds}`,
    role,
    content,
    authorName,
    timestamp,
    rating: null,
    sources: [],
    model: answered ? { __typename: 'ChatbotModel' as const, ...answered.model } : null,
    fallback: answered?.fallback ?? false,
  };
}

function openDetail(user: typeof sampleUser | typeof proUser, handlers: Record<string, Handler> = {}, path = '/chatbots/c1') {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    ...billingAnswers,
    Me: () => ({ data: { me: user } }),
    Chatbots: () => ({ data: { chatbots: [sampleChatbot()] } }),
    Chatbot: () => ({ data: { chatbot: { ...detailChatbot(), knowledgeBase: knowledgeBaseOf() } } }),
    Conversations: () => ({
      data: {
        conversations: [
          sampleConversation(),
          sampleConversation({
            id: 'conv-2',
            sessionId: 'zyxwvuts9876',
            userIp: null,
            messageCount: 1,
            updatedAt: '2025-03-01T08:00:00.000Z',
          }),
        ],
      },
    }),
    Conversation: ({ variables }) => ({
      data: {
        conversation: {
          ...sampleConversation({ id: variables.id }),
          userAgent: 'Mozilla/5.0 (iPhone)',
          messages: [
            message('system', 'Conversation started from the public page'),
            message('user', 'When do you open?'),
            message('assistant', 'We open at 9.', null),
          ],
        },
      },
    }),
    ...handlers,
  });
  return { ...mock, ...renderApp(path, mock.link) };
}

async function openHistory() {
  const tab = await screen.findByRole('tab', { name: 'History' });
  fireEvent.click(tab);
  return tab;
}

const ops = (calls: ReturnType<typeof mockLink>['calls'], name: string) => calls.filter((c) => c.operationName === name);

describe('History tab of the chatbot detail page', () => {
  it('is locked with a PRO badge and an upgrade hint for a free owner, and loads nothing', async () => {
    const { calls } = openDetail(sampleUser);
    await screen.findByRole('heading', { level: 1, name: 'support bot' });
    const history = screen.getByRole('tab', { name: /History/ });
    expect(history.hasAttribute('disabled')).toBe(true);
    expect(within(history).getByText('PRO')).toBeTruthy();
    const hint = document.getElementById('chatbot-history-locked-hint') as HTMLElement;
    expect(within(hint).getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/pricing');
    fireEvent.click(history);
    expect(screen.getByRole('tab', { name: 'Settings' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.queryByText('Conversation History')).toBeNull();
    expect(ops(calls, 'Conversations')).toHaveLength(0);
  });

  it('opens the conversation a link names (a lead\'s "Open conversation") in the History tab', async () => {
    const { calls } = openDetail(proUser, {}, '/chatbots/c1?conversation=conv-2');
    expect(await screen.findByText('We open at 9.')).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'History' }).getAttribute('aria-selected')).toBe('true');
    expect(ops(calls, 'Conversation')[0].variables).toEqual({ chatbotId: 'c1', id: 'conv-2' });
  });

  it('opens Settings for a link to a conversation while history is locked', async () => {
    const { calls } = openDetail(sampleUser, {}, '/chatbots/c1?conversation=conv-2');
    await screen.findByRole('heading', { level: 1, name: 'support bot' });
    expect(screen.getByRole('tab', { name: 'Settings' }).getAttribute('aria-selected')).toBe('true');
    expect(ops(calls, 'Conversation')).toHaveLength(0);
  });

  it('marks a verified visitor’s conversation "Verified" with the user id and email, in the list and the conversation', async () => {
    const verified = { verifiedUserId: 'user-42', verifiedEmail: 'ada@example.com' };
    openDetail(proUser, {
      Conversations: () => ({ data: { conversations: [sampleConversation(verified), sampleConversation({ id: 'conv-2' })] } }),
      Conversation: ({ variables }) => ({
        data: { conversation: { ...sampleConversation({ id: variables.id, ...verified }), userAgent: null, messages: [] } },
      }),
    });
    await openHistory();
    const list = await screen.findByRole('list', { name: 'Conversations' });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(within(first).getByText('Verified')).toBeTruthy();
    expect(within(first).getByText('user-42 · ada@example.com')).toBeTruthy();
    expect(within(second).queryByText('Verified')).toBeNull();
    fireEvent.click(within(first).getByRole('button'));
    expect(await screen.findByText('Identity')).toBeTruthy();
    expect(screen.getByText('user-42 · ada@example.com')).toBeTruthy();
  });

  it('loads the list only when a pro owner opens the tab', async () => {
    const { calls } = openDetail(proUser);
    const tab = await screen.findByRole('tab', { name: 'History' });
    expect(tab.hasAttribute('disabled')).toBe(false);
    expect(screen.queryByText('PRO')).toBeNull();
    expect(ops(calls, 'Conversations')).toHaveLength(0);

    fireEvent.click(tab);
    expect(tab.getAttribute('aria-selected')).toBe('true');
    const list = await screen.findByRole('list', { name: 'Conversations' });
    expect(ops(calls, 'Conversations')[0].variables).toEqual({ chatbotId: 'c1' });
    expect(list.className).toContain('max-h-[500px]');
    expect(list.className).toContain('overflow-y-auto');

    const [first, second] = within(list).getAllByRole('listitem');
    expect(first.textContent).toContain('Session ID: abcdefgh');
    expect(first.textContent).not.toContain('abcdefgh1');
    expect(first.textContent).toContain('3 messages');
    expect(first.textContent).toContain('Mar 4, 2025');
    expect(first.textContent).toContain('203.0.113.7');
    expect(second.textContent).toContain('Session ID: zyxwvuts');
    expect(second.textContent).toContain('1 message');
    expect(second.textContent).toContain('Unknown user');
    // Settings stay mounted but hidden.
    expect((document.getElementById('chatbot-panel-settings') as HTMLElement).hidden).toBe(true);
  });

  it('shows a conversation: its session, dates, user agent and messages, and Back returns to the list', async () => {
    const { calls } = openDetail(proUser);
    await openHistory();
    const list = await screen.findByRole('list', { name: 'Conversations' });
    fireEvent.click(within(list).getAllByRole('button')[0]);

    const messages = await screen.findByRole('list', { name: 'Messages' });
    expect(ops(calls, 'Conversation')[0].variables).toEqual({ chatbotId: 'c1', id: 'conv-1' });
    expect(screen.getByText('abcdefgh12345')).toBeTruthy();
    const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
    expect(screen.getByText('Started').nextElementSibling?.textContent).toBe(dateTime.format(new Date('2025-03-04T10:00:00.000Z')));
    expect(screen.getByText('Last Message').nextElementSibling?.textContent).toBe(dateTime.format(new Date('2025-03-04T10:05:00.000Z')));
    expect(screen.getByText('User Agent').nextElementSibling?.textContent).toBe('Mozilla/5.0 (iPhone)');
    expect(messages.className).toContain('max-h-[500px]');
    expect(messages.className).toContain('overflow-y-auto');

    const [system, user, assistant] = within(messages).getAllByRole('listitem');
    expect(system.textContent).toContain('System Message:');
    expect(system.className).toContain('items-center');
    expect(user.textContent).toContain('When do you open?');
    expect(user.className).toContain('items-end');
    expect(assistant.textContent).toContain('We open at 9.');
    expect(assistant.className).toContain('items-start');
    expect(assistant.textContent).toContain('Unknown time');
    expect(user.textContent).not.toContain('Unknown time');

    fireEvent.click(screen.getByRole('button', { name: /Back/ }));
    expect(await screen.findByRole('list', { name: 'Conversations' })).toBeTruthy();
  });

  it('names under each answer the model that gave it, and says so when the fallback model answered', async () => {
    openDetail(proUser, {
      Conversation: ({ variables }) => ({
        data: {
          conversation: {
            ...sampleConversation({ id: variables.id }),
            userAgent: null,
            messages: [
              message('user', 'When do you open?'),
              message('assistant', 'We open at 9.', undefined, null, {
                model: { id: 'claude-haiku-4-5', displayName: 'Claude Haiku 4.5' },
                fallback: false,
              }),
              message('user', 'And close?'),
              message('assistant', 'We close at 5.', undefined, null, {
                model: { id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash' },
                fallback: true,
              }),
              message('assistant', 'Offline answer from the knowledge base.'),
            ],
          },
        },
      }),
    });
    await openHistory();
    const list = await screen.findByRole('list', { name: 'Conversations' });
    fireEvent.click(within(list).getAllByRole('button')[0]);
    const messages = await screen.findByRole('list', { name: 'Messages' });
    const [question, first, , second, offline] = within(messages).getAllByRole('listitem');
    expect(within(first).getByTestId('answered-by').textContent).toBe('Claude Haiku 4.5');
    expect(within(second).getByTestId('answered-by').textContent).toBe('Answered by the fallback model (Gemini 2.5 Flash)');
    // A visitor's message and an answer no model wrote name none.
    expect(within(question).queryByTestId('answered-by')).toBeNull();
    expect(within(offline).queryByTestId('answered-by')).toBeNull();
  });

  describe('the calls the bot made', () => {
    afterEach(() => vi.unstubAllGlobals());
    const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    const actionCall = {
      id: 'a1',
      actionId: 'act-1',
      actionName: 'look_up_order',
      sessionId: 'abcdefgh12345',
      source: 'chat',
      inputs: { order_id: '1042', api_key: '••••' },
      status: 'ok',
      error: null,
      httpStatus: 200,
      durationMs: 84,
      fieldsRead: ['order.status'],
      createdAt: '2025-03-04T10:01:01.000Z',
    };
    const testRun = { ...actionCall, id: 'a0', source: 'test', sessionId: '', createdAt: '2025-03-04T10:00:30.000Z' };
    const toolCall = {
      id: 't1',
      serverId: 's1',
      toolName: 'cancel_order',
      sessionId: 'abcdefgh12345',
      inputs: { order_id: '1042' },
      status: 'failed',
      error: 'The tool failed: the order shipped',
      durationMs: 120,
      fieldsRead: [],
      createdAt: '2025-03-04T10:03:01.000Z',
    };

    it('lists each call under the answer it belongs to: name, kind, status, duration, masked inputs, fields read', async () => {
      const fetchMock = vi.fn<typeof fetch>(async (url) =>
        json(String(url).includes('/mcp-servers/calls') ? [toolCall] : [actionCall, testRun]),
      );
      vi.stubGlobal('fetch', fetchMock);
      openDetail(proUser, {
        Conversation: ({ variables }) => ({
          data: {
            conversation: {
              ...sampleConversation({ id: variables.id }),
              userAgent: null,
              messages: [
                message('user', 'Where is order 1042?', '2025-03-04T10:01:00.000Z'),
                message('assistant', 'It has shipped.', '2025-03-04T10:01:02.000Z'),
                message('user', 'Cancel it', '2025-03-04T10:02:00.000Z'),
                message('assistant', 'Cancel order (order id: 1042)?', '2025-03-04T10:02:01.000Z'),
                message('user', 'Confirm', '2025-03-04T10:03:00.000Z'),
                message('assistant', 'Sorry, it could not be cancelled.', '2025-03-04T10:03:02.000Z'),
              ],
            },
          },
        }),
      });
      await openHistory();
      const list = await screen.findByRole('list', { name: 'Conversations' });
      fireEvent.click(within(list).getAllByRole('button')[0]);
      const messages = await screen.findByRole('list', { name: 'Messages' });
      const logs = await within(messages).findAllByRole('list', { name: 'Calls the bot made' });
      expect(logs).toHaveLength(2);
      const urls = fetchMock.mock.calls.map(([url]) => String(url)).sort();
      expect(urls).toEqual([
        '/api/chatbot/c1/actions/calls?sessionId=abcdefgh12345&limit=200',
        '/api/chatbot/c1/mcp-servers/calls?sessionId=abcdefgh12345&limit=200',
      ]);
      const answers = within(messages)
        .getAllByRole('listitem')
        .filter((li) => li.parentElement === messages && li.textContent?.startsWith('Chatbot'));
      const [first, card, last] = answers;
      const lookUp = within(first).getByRole('list', { name: 'Calls the bot made' });
      // The owner's test run is not the conversation's.
      expect(within(lookUp).getAllByRole('listitem')).toHaveLength(1);
      expect(lookUp.textContent).toContain('look_up_order');
      expect(lookUp.textContent).toContain('Action');
      expect(lookUp.textContent).toContain('ok · HTTP 200');
      expect(lookUp.textContent).toContain('84 ms');
      expect(lookUp.textContent).toContain('{"order_id":"1042","api_key":"••••"}');
      expect(lookUp.textContent).toContain('order.status');
      expect(within(card).queryByRole('list', { name: 'Calls the bot made' })).toBeNull();
      const cancel = within(last).getByRole('list', { name: 'Calls the bot made' });
      expect(cancel.textContent).toContain('cancel_order');
      expect(cancel.textContent).toContain('MCP tool');
      expect(cancel.textContent).toContain('failed');
      expect(cancel.textContent).toContain('The tool failed: the order shipped');
    });

    it('says so, quietly, when the log cannot be read, and still shows the messages', async () => {
      vi.stubGlobal(
        'fetch',
        vi.fn<typeof fetch>(async () => new Response('{}', { status: 500 })),
      );
      openDetail(proUser);
      await openHistory();
      const list = await screen.findByRole('list', { name: 'Conversations' });
      fireEvent.click(within(list).getAllByRole('button')[0]);
      expect(await screen.findByText('The calls the bot made could not be loaded.')).toBeTruthy();
      expect(screen.getByText('We open at 9.')).toBeTruthy();
    });
  });

  it("shows a member's reply on the chatbot's side under their name, and an internal note set apart as in the inbox", async () => {
    openDetail(proUser, {
      Conversation: () => ({
        data: {
          conversation: {
            ...sampleConversation(),
            userAgent: null,
            messages: [
              message('user', 'Can I talk to a person?'),
              message('agent', 'Hi, Ada here.\nLet me look.', '2025-03-04T10:02:00.000Z', 'Ada'),
              message('note', 'Refund is due', '2025-03-04T10:03:00.000Z', 'Ada'),
              message('agent', 'Back again', '2025-03-04T10:04:00.000Z'),
            ],
          },
        },
      }),
    });
    await openHistory();
    fireEvent.click((await screen.findAllByRole('button', { name: /Session ID/ }))[0]);
    const messages = await screen.findByRole('list', { name: 'Messages' });
    const [, reply, note, unnamed] = within(messages).getAllByRole('listitem');
    expect(reply.className).toContain('items-start');
    expect(within(reply).getByText('Ada (team)')).toBeTruthy();
    // As typed, line breaks kept; never called a system message.
    expect(within(reply).getByText(/Hi, Ada here\.\s+Let me look\./).className).toContain('whitespace-pre-wrap');
    expect(reply.textContent).not.toContain('System Message');
    expect(reply.textContent).not.toContain('Chatbot');
    expect(within(messages).getByRole('listitem', { name: 'Internal note' })).toBe(note);
    const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
    expect(within(note).getByText(/Internal note · Ada/).textContent).toBe(
      `Internal note · Ada · ${dateTime.format(new Date('2025-03-04T10:03:00.000Z'))}`,
    );
    expect(note.textContent).toContain('Refund is due');
    expect(note.className).toContain('border-dashed');
    expect(within(unnamed).getByText('Team member')).toBeTruthy();
    expect(messages.textContent).not.toContain('System Message');
  });

  it('shows "Unknown" for a conversation without a user agent', async () => {
    openDetail(proUser, {
      Conversation: () => ({ data: { conversation: { ...sampleConversation(), userAgent: null, messages: [] } } }),
    });
    await openHistory();
    fireEvent.click((await screen.findAllByRole('button', { name: /Session ID/ }))[0]);
    expect((await screen.findByText('User Agent')).nextElementSibling?.textContent).toBe('Unknown');
  });

  it('says so when the chatbot has no conversations', async () => {
    openDetail(proUser, { Conversations: () => ({ data: { conversations: [] } }) });
    await openHistory();
    expect(await screen.findByText('No conversations found for this chatbot.')).toBeTruthy();
  });

  it("shows the server's list error, else the default", async () => {
    openDetail(proUser, { Conversations: () => graphqlError('Conversation history is a Pro feature', 'FORBIDDEN') });
    await openHistory();
    expect((await screen.findByRole('alert')).textContent).toBe('Conversation history is a Pro feature');
  });

  it('falls back to "Failed to load conversation history"', async () => {
    openDetail(proUser, {
      Conversations: () => {
        throw new Error('Failed to fetch');
      },
    });
    await openHistory();
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to load conversation history');
  });

  it('falls back to "Failed to load conversation messages", and shows a server message when sent', async () => {
    openDetail(proUser, {
      Conversation: ({ variables }) => {
        if (variables.id === 'conv-2') return graphqlError('Conversation not found', 'NOT_FOUND');
        throw new Error('Failed to fetch');
      },
    });
    await openHistory();
    const buttons = await screen.findAllByRole('button', { name: /Session ID/ });
    fireEvent.click(buttons[0]);
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to load conversation messages');
    fireEvent.click(screen.getByRole('button', { name: /Back/ }));
    fireEvent.click((await screen.findAllByRole('button', { name: /Session ID/ }))[1]);
    expect((await screen.findByRole('alert')).textContent).toBe('Conversation not found');
  });

  it('shows the visitor the host page named (Parley.identify) in the list and the details', async () => {
    const named = sampleConversation({ visitorId: '42', visitorName: 'Jane Doe' });
    openDetail(proUser, {
      Conversations: () => ({ data: { conversations: [named, sampleConversation({ id: 'conv-2', visitorId: 'u-7' })] } }),
      Conversation: () => ({ data: { conversation: { ...named, userAgent: null, messages: [message('user', 'Hi')] } } }),
    });
    await openHistory();
    const list = await screen.findByRole('list', { name: 'Conversations' });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(within(first).getByText('Jane Doe · id 42')).toBeTruthy();
    expect(within(second).getByText('id u-7')).toBeTruthy();
    fireEvent.click(within(first).getByRole('button'));
    await screen.findByRole('list', { name: 'Messages' });
    expect(screen.getByText('Visitor', { selector: 'dt' }).nextElementSibling?.textContent).toBe('Jane Doe · id 42');
  });

  it('shows no visitor line for an anonymous conversation', async () => {
    openDetail(proUser);
    await openHistory();
    const list = await screen.findByRole('list', { name: 'Conversations' });
    expect(within(list).queryByText(/ · id |^id /)).toBeNull();
    fireEvent.click(within(list).getAllByRole('button')[0]);
    await screen.findByRole('list', { name: 'Messages' });
    expect(screen.queryByText('Visitor', { selector: 'dt' })).toBeNull();
  });

  it('keeps unsaved settings when switching to History and back', async () => {
    openDetail(proUser);
    const name = (await screen.findByLabelText('Chatbot Name')) as HTMLInputElement;
    fireEvent.change(name, { target: { value: 'Draft name' } });
    await openHistory();
    fireEvent.click(screen.getByRole('tab', { name: 'Settings' }));
    expect((screen.getByLabelText('Chatbot Name') as HTMLInputElement).value).toBe('Draft name');
  });
});
