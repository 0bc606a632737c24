import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HandoffStatus } from '../../../gql/graphql';
import { graphqlError, sampleUser, type Handler } from '../../../test/mock-link';
import { openAsMember, personalWorkspace, sampleWorkspace, workspacesAnswer } from '../../../test/workspace-fixtures';
import { INBOX_ACCESS_ENDED, INBOX_UPGRADE_TITLE, NOTIFY_LABEL } from '../components/inbox-page';
import { inboxStreamRunning, reconnectDelay } from '../inbox-stream';
import { placeItem, waitedFor } from '../inbox-lists';

const proUser = { ...sampleUser, subscription: 'pro' as const };
const CONVERSATION = '7b0c4c8e-5f0a-4d3e-9d55-0a1b2c3d4e5f';
const OTHER = '1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b';

function item(conversationId: string, status: HandoffStatus, overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'InboxItem' as const,
    conversationId,
    chatbotId: 'c1',
    status,
    agentName: null as string | null,
    assigneeId: null as string | null,
    waitingSince: new Date(Date.now() - 5.5 * 60_000).toISOString() as string | null,
    visitorName: 'Grace' as string | null,
    visitorEmail: null as string | null,
    lastMessage: 'Let me find someone for you.' as string | null,
    lastMessageAt: new Date().toISOString() as string | null,
    messageCount: 3,
    lastVisitorMessage: 'Can I talk to someone?' as string | null,
    verifiedUserId: null as string | null,
    channel: 'web',
    reason: 'missing_knowledge' as string | null,
    ...overrides,
  };
}

function message(
  id: string,
  role: string,
  content: string,
  authorName: string | null = null,
  sources: Array<{ entryId: string; title: string; url: string | null }> = [],
  answered: { model: { id: string; displayName: string }; fallback: boolean } | null = null,
  timestamp = '2026-11-28T09:00:00.000Z',
) {
  return {
    __typename: 'InboxMessage' as const,
    id,
    role,
    content,
    authorName,
    timestamp,
    sources: sources.map((source) => ({ __typename: 'AnswerSource' as const, ...source })),
    model: answered ? { __typename: 'ChatbotModel' as const, ...answered.model } : null,
    fallback: answered?.fallback ?? false,
  };
}

function conversation(status: HandoffStatus, overrides: Record<string, unknown> = {}) {
  return {
    __typename: 'InboxConversation' as const,
    item: item(CONVERSATION, status),
    sessionId: 'abcdefgh12345',
    messages: [
      message('m1', 'user', 'Where is my order?'),
      message('m2', 'assistant', 'I could not find that.'),
      message('m3', 'note', 'Check the warehouse first', 'Ada'),
    ],
    summary: null as string | null,
    lead: null,
    ...overrides,
  };
}

/** A /api/inbox/events stream the test writes to: fetch answers it, and the call logs with none. */
function fakeEventStream() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const requests: Array<{ url: string; headers: Record<string, string> }> = [];
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    // The calls the bot made in the conversation shown: none unless a test says otherwise.
    if (String(url).includes('/calls?')) return new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } });
    requests.push({ url, headers: (init?.headers ?? {}) as Record<string, string> });
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
    });
    init?.signal?.addEventListener('abort', () => {
      try {
        controller.error(new DOMException('aborted', 'AbortError'));
      } catch {
        // already closed
      }
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    requests,
    send(event: string, data: unknown) {
      controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
    },
    ping() {
      controller.enqueue(encoder.encode(': ping\n\n'));
    },
  };
}

const pro = (handlers: Record<string, Handler>): Record<string, Handler> => ({ Me: () => ({ data: { me: proUser } }), ...handlers });

describe('Inbox page', () => {
  let stream: ReturnType<typeof fakeEventStream>;
  beforeEach(() => {
    stream = fakeEventStream();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('lists waiting and open conversations, with the badge of the waiting count, live from the stream', async () => {
    let waitingCount = 1;
    openAsMember(
      '/inbox',
      sampleWorkspace({ role: 'ADMIN' }),
      pro({
        Inbox: () => ({
          data: {
            inbox: {
              __typename: 'Inbox',
              waiting: [item(CONVERSATION, 'WAITING')],
              open: [item(OTHER, 'HUMAN', { visitorName: 'Linus', agentName: 'Grace Hopper', assigneeId: 'u2', channel: 'telegram' })],
            },
          },
        }),
        InboxWaitingCount: () => ({ data: { inboxWaitingCount: waitingCount } }),
        HandoffNotifications: () => ({
          data: { currentWorkspace: { __typename: 'Workspace', id: 'w-team', handoffNotifications: true } },
        }),
      }),
    );
    expect(await screen.findByRole('heading', { name: 'Inbox', level: 1 })).toBeTruthy();
    const waiting = within(await screen.findByRole('region', { name: 'Waiting' }));
    expect(waiting.getByRole('link', { name: /Grace/ }).getAttribute('href')).toBe(`/inbox/${CONVERSATION}`);
    expect(waiting.getByText('waiting 5 min')).toBeTruthy();
    // The row previews what the visitor wrote, not the bot's answer after it.
    expect(waiting.getByText('Can I talk to someone?')).toBeTruthy();
    expect(waiting.queryByText('Let me find someone for you.')).toBeNull();
    const open = within(screen.getByRole('region', { name: 'Open' }));
    // An admin sees every agent's conversations, with who has each.
    expect(open.getByText('Grace Hopper')).toBeTruthy();
    // Each row says where the visitor wrote from.
    expect(waiting.getByText('Web')).toBeTruthy();
    expect(open.getByText('Telegram')).toBeTruthy();
    expect((await screen.findByRole('status', { name: '1 waiting' })).textContent).toBe('1');
    expect(screen.getByRole('link', { name: /Inbox/ }).getAttribute('href')).toBe('/inbox');

    // The stream is read with the session's headers.
    await waitFor(() => expect(stream.requests.length).toBe(1));
    expect(stream.requests[0].url).toBe('/api/inbox/events');
    expect(stream.requests[0].headers.authorization).toBe('Bearer good');
    expect(stream.requests[0].headers['x-workspace-id']).toBe('w-team');

    // A second visitor waits: the list and the badge follow without a reload.
    waitingCount = 2;
    stream.ping();
    stream.send('conversation', item(OTHER, 'WAITING', { visitorName: 'Linus', waitingSince: new Date().toISOString() }));
    expect(await waiting.findByRole('link', { name: /Linus/ })).toBeTruthy();
    expect(open.queryByText('Grace Hopper')).toBeNull();
    expect(await screen.findByRole('status', { name: '2 waiting' })).toBeTruthy();

    // Claimed elsewhere: it leaves Waiting for Open.
    stream.send('conversation', item(CONVERSATION, 'HUMAN', { agentName: 'Alan', assigneeId: 'u3' }));
    expect(await open.findByText('Alan')).toBeTruthy();
    expect(waiting.queryByRole('link', { name: /Grace/ })).toBeNull();
    expect(screen.getByRole('switch', { name: NOTIFY_LABEL }).getAttribute('aria-checked')).toBe('true');
  });

  it('shows a conversation with its notes set apart, and claims, replies with one id per reply kept on retry, and adds a note', async () => {
    let status: HandoffStatus = 'WAITING';
    let replyAttempts = 0;
    const current = () =>
      item(CONVERSATION, status, {
        channel: 'telegram',
        ...(status === 'HUMAN' ? { agentName: 'Ada', assigneeId: sampleUser.id } : {}),
      });
    const { calls } = openAsMember(
      `/inbox/${CONVERSATION}`,
      sampleWorkspace({ role: 'AGENT' }),
      pro({
        Inbox: () => ({
          data: {
            inbox: { __typename: 'Inbox', waiting: status === 'WAITING' ? [current()] : [], open: status === 'HUMAN' ? [current()] : [] },
          },
        }),
        InboxWaitingCount: () => ({ data: { inboxWaitingCount: 1 } }),
        HandoffNotifications: () => ({
          data: { currentWorkspace: { __typename: 'Workspace', id: 'w-team', handoffNotifications: true } },
        }),
        InboxConversation: () => ({
          data: {
            inboxConversation: conversation(status, {
              item: current(),
              lead: {
                __typename: 'InboxLead',
                id: 'l1',
                name: null,
                email: 'grace@example.com',
                phone: null,
                consented: false,
                source: 'handoff_timeout',
                createdAt: '2026-11-28T09:00:00.000Z',
                channel: 'telegram',
                channelContact: '8403',
              },
            }),
          },
        }),
        ClaimConversation: () => {
          status = 'HUMAN';
          return { data: { claimConversation: item(CONVERSATION, 'HUMAN', { agentName: 'Ada', assigneeId: sampleUser.id }) } };
        },
        ReplyToConversation: ({ variables }) => {
          replyAttempts += 1;
          if (replyAttempts === 1) throw new Error('network down');
          return { data: { replyToConversation: message('m4', 'agent', variables.content as string, 'Ada') } };
        },
        AddConversationNote: ({ variables }) => ({
          data: { addConversationNote: message('m5', 'note', variables.content as string, 'Ada') },
        }),
        SummarizeConversation: () => ({ data: { summarizeConversation: 'Grace wants her order status.' } }),
      }),
    );
    const panel = within(await screen.findByRole('region', { name: 'Conversation with Grace' }));
    expect(panel.getByText('Where is my order?')).toBeTruthy();
    // The header says where the visitor wrote from; the lead carries their identity there.
    const lead = within(panel.getByRole('region', { name: 'Lead' }));
    expect(lead.getByText('Telegram')).toBeTruthy();
    expect(lead.getByText('8403')).toBeTruthy();
    expect(panel.getAllByText('Telegram')).toHaveLength(2);
    const note = panel.getByRole('listitem', { name: 'Internal note' });
    expect(within(note).getByText('Check the warehouse first')).toBeTruthy();
    expect(within(note).getByText(/Internal note · Ada/)).toBeTruthy();

    fireEvent.click(panel.getByRole('button', { name: 'Claim' }));
    expect(await panel.findByText('You are answering')).toBeTruthy();
    expect(panel.queryByRole('button', { name: 'Claim' })).toBeNull();

    const reply = panel.getByRole('textbox', { name: 'Reply to the visitor' });
    fireEvent.change(reply, { target: { value: 'Let me check that for you.' } });
    fireEvent.click(panel.getByRole('button', { name: 'Send reply' }));
    expect(await panel.findByRole('alert')).toBeTruthy();
    expect((reply as HTMLTextAreaElement).value).toBe('Let me check that for you.');
    fireEvent.click(panel.getByRole('button', { name: 'Send reply' }));
    await waitFor(() => expect((reply as HTMLTextAreaElement).value).toBe(''));
    const replies = calls.filter((c) => c.operationName === 'ReplyToConversation');
    expect(replies).toHaveLength(2);
    expect(replies[0].variables.clientMessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(replies[1].variables.clientMessageId).toBe(replies[0].variables.clientMessageId);

    fireEvent.change(panel.getByRole('textbox', { name: 'Internal note' }), { target: { value: 'Promised an answer today' } });
    fireEvent.click(panel.getByRole('button', { name: 'Add note' }));
    await waitFor(() => expect(calls.some((c) => c.operationName === 'AddConversationNote')).toBe(true));
    const noteCall = calls.find((c) => c.operationName === 'AddConversationNote')!;
    expect(noteCall.variables).toMatchObject({ id: CONVERSATION, content: 'Promised an answer today' });
    expect(noteCall.variables.clientMessageId).not.toBe(replies[0].variables.clientMessageId);

    fireEvent.click(panel.getByRole('button', { name: 'Summarize' }));
    expect(await panel.findByText('Grace wants her order status.')).toBeTruthy();
    expect(panel.getByText(/costs like an answer/)).toBeTruthy();
  });

  it('drops the conversations and says so when the server ends the stream because access was taken away', async () => {
    openAsMember(
      `/inbox/${CONVERSATION}`,
      sampleWorkspace({ role: 'AGENT' }),
      pro({
        Inbox: () => ({ data: { inbox: { __typename: 'Inbox', waiting: [item(CONVERSATION, 'WAITING')], open: [] } } }),
        InboxConversation: () => ({ data: { inboxConversation: conversation('WAITING') } }),
        InboxWaitingCount: () => ({ data: { inboxWaitingCount: 1 } }),
        HandoffNotifications: () => ({
          data: { currentWorkspace: { __typename: 'Workspace', id: 'w-team', handoffNotifications: true } },
        }),
      }),
    );
    const waiting = within(await screen.findByRole('region', { name: 'Waiting' }));
    expect(waiting.getByRole('link', { name: /Grace/ })).toBeTruthy();
    expect(await screen.findByText('Where is my order?')).toBeTruthy();
    await waitFor(() => expect(stream.requests.length).toBe(1));
    stream.send('error', { message: INBOX_ACCESS_ENDED, status: 403 });
    expect(await screen.findByRole('heading', { name: INBOX_ACCESS_ENDED })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Waiting' })).toBeNull();
    expect(screen.queryByText('Where is my order?')).toBeNull();
  });

  it('fetches the open conversation again when the stream reports it', async () => {
    let messages = [message('m1', 'user', 'Hello?')];
    const { calls } = openAsMember(
      `/inbox/${CONVERSATION}`,
      sampleWorkspace({ role: 'AGENT' }),
      pro({
        Inbox: () => ({ data: { inbox: { __typename: 'Inbox', waiting: [item(CONVERSATION, 'WAITING')], open: [] } } }),
        InboxWaitingCount: () => ({ data: { inboxWaitingCount: 1 } }),
        HandoffNotifications: () => ({
          data: { currentWorkspace: { __typename: 'Workspace', id: 'w-team', handoffNotifications: false } },
        }),
        InboxConversation: () => ({ data: { inboxConversation: conversation('WAITING', { messages }) } }),
      }),
    );
    const panel = within(await screen.findByRole('region', { name: 'Conversation with Grace' }));
    expect(panel.getByText('Hello?')).toBeTruthy();
    await waitFor(() => expect(stream.requests.length).toBe(1));
    messages = [...messages, message('m2', 'user', 'Anyone there?')];
    stream.send('conversation', item(CONVERSATION, 'WAITING', { lastMessage: 'Anyone there?' }));
    expect(await panel.findByText('Anyone there?')).toBeTruthy();
    expect(calls.filter((c) => c.operationName === 'InboxConversation').length).toBeGreaterThanOrEqual(2);
  });

  it("names the browser tab after the visitor, puts the way back first, and shows the bot's citations as the visitor saw them and its model", async () => {
    const answer = message(
      'm2',
      'assistant',
      'Orders ship within two days [1] from Lyon [2].',
      null,
      [
        { entryId: 'e1', title: 'Shipping policy', url: 'https://acme.example/shipping' },
        { entryId: 'e2', title: 'Warehouses.pdf', url: null },
      ],
      { model: { id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash' }, fallback: true },
    );
    openAsMember(
      `/inbox/${CONVERSATION}`,
      sampleWorkspace({ role: 'AGENT' }),
      pro({
        Inbox: () => ({ data: { inbox: { __typename: 'Inbox', waiting: [item(CONVERSATION, 'WAITING')], open: [] } } }),
        InboxWaitingCount: () => ({ data: { inboxWaitingCount: 1 } }),
        HandoffNotifications: () => ({
          data: { currentWorkspace: { __typename: 'Workspace', id: 'w-team', handoffNotifications: true } },
        }),
        InboxConversation: () => ({
          data: {
            inboxConversation: conversation('WAITING', {
              item: item(CONVERSATION, 'WAITING', { visitorName: 'Grace Hopper', visitorEmail: 'grace@example.com' }),
              messages: [message('m1', 'user', 'Where do you ship from?'), answer],
            }),
          },
        }),
      }),
    );
    const region = await screen.findByRole('region', { name: 'Conversation with Grace Hopper' });
    await waitFor(() => expect(document.title).toBe('Grace Hopper — Inbox — Parley'));
    const panel = within(region);
    // No raw [1]: numbered badges titled by their source, each kept on the line of the word it
    // follows, and the list under the answer.
    const badges = [...region.querySelectorAll('[data-citation]')];
    expect(badges.map((b) => b.getAttribute('title'))).toEqual(['Shipping policy', 'Warehouses.pdf']);
    expect(badges[0].closest('p')!.textContent).toBe('Orders ship within two days source 1 from Lyon source 2.');
    expect(badges.map((b) => [b.parentElement!.className, b.parentElement!.textContent])).toEqual([
      ['whitespace-nowrap', 'days source 1'],
      ['whitespace-nowrap', 'Lyon source 2.'],
    ]);
    fireEvent.click(panel.getByRole('button', { name: /Sources \(2\)/ }));
    expect(panel.getByRole('link', { name: /Shipping policy/ }).getAttribute('href')).toBe('https://acme.example/shipping');
    // The model that gave the answer, here the fallback; nothing under the visitor's message.
    expect(panel.getAllByTestId('answered-by').map((l) => l.textContent)).toEqual(['Answered by the fallback model (Gemini 2.5 Flash)']);
    // "← All conversations" comes before the conversation (on a phone the lists are hidden).
    const back = screen.getByRole('link', { name: '← All conversations' });
    expect(back.getAttribute('href')).toBe('/inbox');
    expect(back.compareDocumentPosition(region) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    // An agent does not change the chatbot's tests.
    expect(panel.queryByRole('button', { name: 'Add to tests' })).toBeNull();
  });

  it('lets a member who may change the chatbot add an answer to its tests, the question and cited entries preset', async () => {
    const answer = message('m2', 'assistant', 'Orders ship within two days [1].', null, [
      { entryId: 'e1', title: 'Shipping policy', url: 'https://acme.example/shipping' },
    ]);
    openAsMember(
      `/inbox/${CONVERSATION}`,
      sampleWorkspace({ role: 'ADMIN' }),
      pro({
        Inbox: () => ({ data: { inbox: { __typename: 'Inbox', waiting: [item(CONVERSATION, 'WAITING')], open: [] } } }),
        InboxWaitingCount: () => ({ data: { inboxWaitingCount: 1 } }),
        HandoffNotifications: () => ({
          data: { currentWorkspace: { __typename: 'Workspace', id: 'w-team', handoffNotifications: true } },
        }),
        InboxConversation: () => ({
          data: {
            inboxConversation: conversation('WAITING', {
              item: item(CONVERSATION, 'WAITING', { visitorName: 'Grace Hopper' }),
              messages: [message('m1', 'user', 'How fast do you ship?'), answer],
            }),
          },
        }),
      }),
    );
    const region = await screen.findByRole('region', { name: 'Conversation with Grace Hopper' });
    // One button: under the bot's answer, none under the visitor's question.
    const buttons = await within(region).findAllByRole('button', { name: 'Add to tests' });
    expect(buttons).toHaveLength(1);
    fireEvent.click(buttons[0]);
    const dialog = await screen.findByRole('dialog', { name: 'Add to tests' });
    expect((within(dialog).getByLabelText('Question') as HTMLInputElement).value).toBe('How fast do you ship?');
    expect((within(dialog).getByLabelText('Shipping policy') as HTMLInputElement).checked).toBe(true);
  });

  it('keeps the member’s own mail switch', async () => {
    const { calls } = openAsMember(
      '/inbox',
      sampleWorkspace({ role: 'AGENT' }),
      pro({
        Inbox: () => ({ data: { inbox: { __typename: 'Inbox', waiting: [], open: [] } } }),
        InboxWaitingCount: () => ({ data: { inboxWaitingCount: 0 } }),
        HandoffNotifications: () => ({
          data: { currentWorkspace: { __typename: 'Workspace', id: 'w-team', handoffNotifications: true } },
        }),
        SetHandoffNotifications: () => ({ data: { setHandoffNotifications: false } }),
      }),
    );
    expect(await screen.findByText('Nobody is waiting for a person.')).toBeTruthy();
    // No badge at zero.
    expect(screen.queryByRole('status', { name: /waiting/ })).toBeNull();
    const toggle = await screen.findByRole('switch', { name: NOTIFY_LABEL });
    await waitFor(() => expect(toggle.hasAttribute('disabled')).toBe(false));
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle.getAttribute('aria-checked')).toBe('false'));
    expect(calls.find((c) => c.operationName === 'SetHandoffNotifications')?.variables).toEqual({ enabled: false });
  });

  it('shows a free workspace the upgrade prompt, and opens no stream', async () => {
    openAsMember('/inbox', sampleWorkspace({ role: 'OWNER' }), { InboxWaitingCount: () => ({ data: { inboxWaitingCount: 0 } }) });
    expect(await screen.findByRole('region', { name: INBOX_UPGRADE_TITLE })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/pricing');
    expect(stream.requests).toHaveLength(0);
  });

  it('hides the link from a viewer and tells them the page is not theirs', async () => {
    openAsMember('/inbox', sampleWorkspace({ role: 'VIEWER' }), pro({}));
    expect(await screen.findByText('Not allowed')).toBeTruthy();
    expect(screen.queryByRole('link', { name: /Inbox/ })).toBeNull();
    expect(stream.requests).toHaveLength(0);
    expect(inboxStreamRunning()).toBe(false);
  });

  it('acts in the workspace a mail’s link names, then drops it from the address', async () => {
    const { calls, router } = openAsMember(
      `/inbox/${CONVERSATION}?workspace=w-team`,
      personalWorkspace,
      pro({
        Workspaces: workspacesAnswer(sampleWorkspace({ role: 'AGENT' })),
        Inbox: () => ({ data: { inbox: { __typename: 'Inbox', waiting: [item(CONVERSATION, 'WAITING')], open: [] } } }),
        InboxWaitingCount: () => ({ data: { inboxWaitingCount: 1 } }),
        HandoffNotifications: () => ({
          data: { currentWorkspace: { __typename: 'Workspace', id: 'w-team', handoffNotifications: true } },
        }),
        InboxConversation: () => ({ data: { inboxConversation: conversation('WAITING') } }),
      }),
    );
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(router.state.location.pathname).toBe(`/inbox/${CONVERSATION}`);
    expect(localStorage.getItem('workspace')).toBe('w-team');
    expect(await screen.findByRole('region', { name: 'Conversation with Grace' })).toBeTruthy();
    const asked = calls.filter((c) => c.operationName === 'InboxConversation');
    expect(asked.at(-1)?.headers['x-workspace-id']).toBe('w-team');
  });

  it('shows the server’s message when the conversation is another workspace’s', async () => {
    openAsMember(
      `/inbox/${CONVERSATION}`,
      sampleWorkspace({ role: 'AGENT' }),
      pro({
        Inbox: () => ({ data: { inbox: { __typename: 'Inbox', waiting: [], open: [] } } }),
        InboxWaitingCount: () => ({ data: { inboxWaitingCount: 0 } }),
        HandoffNotifications: () => ({
          data: { currentWorkspace: { __typename: 'Workspace', id: 'w-team', handoffNotifications: true } },
        }),
        InboxConversation: () => graphqlError('Conversation not found', 'NOT_FOUND'),
      }),
    );
    expect(await screen.findByText('Conversation not found')).toBeTruthy();
  });

  describe('the calls the bot made', () => {
    const actionCall = {
      id: 'a1',
      actionId: 'act1',
      actionName: 'look_up_order',
      sessionId: 'abcdefgh12345',
      source: 'chat',
      inputs: { order_id: '1042', api_key: '••••' },
      status: 'ok',
      error: null,
      httpStatus: 200,
      durationMs: 84,
      fieldsRead: ['order.status'],
      createdAt: '2026-11-28T09:01:01.000Z',
    };
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
      createdAt: '2026-11-28T09:03:01.000Z',
    };
    const messages = [
      message('m1', 'user', 'Where is order 1042?', null, [], null, '2026-11-28T09:01:00.000Z'),
      message('m2', 'assistant', 'It has shipped.', null, [], null, '2026-11-28T09:01:02.000Z'),
      message('m3', 'user', 'Cancel it then', null, [], null, '2026-11-28T09:03:00.000Z'),
      message('m4', 'assistant', 'Sorry, it could not be cancelled.', null, [], null, '2026-11-28T09:03:02.000Z'),
    ];
    /** The event stream for the inbox, the call logs answered by `logs` (every URL asked is kept). */
    function withLogs(logs: (url: string) => Response) {
      const urls: string[] = [];
      const streamFetch = vi.mocked(fetch);
      vi.stubGlobal(
        'fetch',
        vi.fn(async (url: string, init?: RequestInit) => {
          urls.push(String(url));
          return String(url).includes('/calls?') ? logs(String(url)) : streamFetch(url, init);
        }),
      );
      return urls;
    }
    const json = (body: unknown, status = 200) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    const inbox = (role: 'AGENT' | 'VIEWER') =>
      openAsMember(
        `/inbox/${CONVERSATION}`,
        sampleWorkspace({ role }),
        pro({
          Inbox: () => ({ data: { inbox: { __typename: 'Inbox', waiting: [item(CONVERSATION, 'WAITING')], open: [] } } }),
          InboxWaitingCount: () => ({ data: { inboxWaitingCount: 1 } }),
          HandoffNotifications: () => ({
            data: { currentWorkspace: { __typename: 'Workspace', id: 'w-team', handoffNotifications: true } },
          }),
          InboxConversation: () => ({ data: { inboxConversation: conversation('WAITING', { messages }) } }),
        }),
      );

    it('lists each call under the answer it belongs to, as History does, read by the conversation’s session', async () => {
      const urls = withLogs((url) => json(url.includes('/mcp-servers/calls') ? [toolCall] : [actionCall]));
      inbox('AGENT');
      const region = await screen.findByRole('region', { name: 'Conversation with Grace' });
      const logs = await within(region).findAllByRole('list', { name: 'Calls the bot made' });
      expect(logs).toHaveLength(2);
      expect(urls.filter((u) => u.includes('/calls?')).sort()).toEqual([
        '/api/chatbot/c1/actions/calls?sessionId=abcdefgh12345&limit=200',
        '/api/chatbot/c1/mcp-servers/calls?sessionId=abcdefgh12345&limit=200',
      ]);
      const answers = within(within(region).getByRole('list', { name: 'Messages' }))
        .getAllByRole('listitem')
        .filter((li) => li.textContent?.startsWith('Bot'));
      const [first, last] = answers;
      const lookUp = within(first).getByRole('list', { name: 'Calls the bot made' });
      expect(lookUp.textContent).toContain('look_up_order');
      expect(lookUp.textContent).toContain('Action');
      expect(lookUp.textContent).toContain('ok · HTTP 200');
      expect(lookUp.textContent).toContain('84 ms');
      expect(lookUp.textContent).toContain('{"order_id":"1042","api_key":"••••"}');
      expect(lookUp.textContent).toContain('order.status');
      const cancel = within(last).getByRole('list', { name: 'Calls the bot made' });
      expect(cancel.textContent).toContain('cancel_order');
      expect(cancel.textContent).toContain('MCP tool');
      expect(cancel.textContent).toContain('The tool failed: the order shipped');
    });

    it('says so, quietly, when the log cannot be read, and still shows the messages', async () => {
      withLogs(() => json({ message: 'boom' }, 500));
      inbox('AGENT');
      const region = await screen.findByRole('region', { name: 'Conversation with Grace' });
      expect(await within(region).findByText('The calls the bot made could not be loaded.')).toBeTruthy();
      expect(within(region).getByText('Sorry, it could not be cancelled.')).toBeTruthy();
      expect(within(region).queryByRole('list', { name: 'Calls the bot made' })).toBeNull();
    });

    it('reads no log for a member who may not read conversations, and shows them no error', async () => {
      const urls = withLogs((url) => json(url.includes('/mcp-servers/calls') ? [toolCall] : [actionCall]));
      inbox('VIEWER');
      expect(await screen.findByText('Not allowed')).toBeTruthy();
      expect(urls.filter((u) => u.includes('/calls?'))).toEqual([]);
      expect(screen.queryByRole('list', { name: 'Calls the bot made' })).toBeNull();
      expect(screen.queryByText('The calls the bot made could not be loaded.')).toBeNull();
    });
  });
});

describe('the inbox stream and lists', () => {
  it('waits longer before each reconnection, up to 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(reconnectDelay)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  it('places a conversation by its status: waiting longest first, open most recent first, bot and closed out', () => {
    const a = item('a', 'WAITING', { waitingSince: '2026-01-01T10:00:00Z' });
    const b = item('b', 'WAITING', { waitingSince: '2026-01-01T09:00:00Z' });
    const lists = placeItem({ waiting: [a], open: [] }, b);
    expect(lists.waiting.map((i) => i.conversationId)).toEqual(['b', 'a']);
    const claimed = placeItem(lists, { ...a, status: 'HUMAN' });
    expect(claimed.waiting.map((i) => i.conversationId)).toEqual(['b']);
    expect(claimed.open.map((i) => i.conversationId)).toEqual(['a']);
    expect(placeItem(claimed, { ...a, status: 'CLOSED' }).open).toEqual([]);
  });

  it('says how long a visitor has waited', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(waitedFor('2026-01-01T11:59:55Z', now)).toBe('just now');
    expect(waitedFor('2026-01-01T11:59:30Z', now)).toBe('30 s');
    expect(waitedFor('2026-01-01T11:57:00Z', now)).toBe('3 min');
    expect(waitedFor('2026-01-01T10:55:00Z', now)).toBe('1 h 5 min');
  });
});
