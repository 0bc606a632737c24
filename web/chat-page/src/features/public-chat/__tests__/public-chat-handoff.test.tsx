// The visitor's side of handoff (docs/product.md, Talking to a person): asking for a person, the
// banner, the live stream of a person's replies, the bot's silence meanwhile, the way back to the
// bot, reconnecting, and the email asked for when nobody was free.
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reconnectDelay } from '../api/handoff-api';
import { PublicChatPage } from '../components/public-chat-page';
import { TIMED_OUT_MESSAGE } from '../hooks/use-handoff';
import { bodyOf, chatbot, json, pressEnter, type, type Call } from './public-chat-fixtures';

/** A conversation stream the test writes to; it fails (as fetch's body does) when the page aborts it. */
function conversationStream() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let aborted = false;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const write = async (text: string) => {
    await act(async () => {
      controller.enqueue(encoder.encode(text));
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
  };
  return {
    response: new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    get aborted() {
      return aborted;
    },
    abort() {
      aborted = true;
      try {
        controller.error(new DOMException('The operation was aborted.', 'AbortError'));
      } catch {
        // already closed
      }
    },
    message: (id: string, data: Record<string, unknown>) =>
      write(`id: ${id}\nevent: message\ndata: ${JSON.stringify({ id, ...data })}\n\n`),
    state: (data: Record<string, unknown>) =>
      write(`event: state\ndata: ${JSON.stringify({ agentName: null, waitingSince: null, timedOut: false, ...data })}\n\n`),
    ping: () => write(': ping\n\n'),
    async end() {
      await act(async () => {
        controller.close();
        await new Promise((resolve) => setTimeout(resolve, 0));
      });
    },
  };
}

type Stream = ReturnType<typeof conversationStream>;

/**
 * The public API in-process: the chatbot's profile (handoff on unless told), each POST answered by
 * the next of `replies`, each events request by the next stream in `streams`.
 */
function mockApi(replies: Array<Response | (() => Response)>, opts: { handoff?: boolean; streams?: Stream[] } = {}) {
  const calls: Call[] = [];
  const streams = opts.streams ?? [];
  const opened: Stream[] = [];
  const fetchMock = vi.fn(async (url: string, init: RequestInit = {}) => {
    calls.push({ url, init });
    if (url.includes('/events?')) {
      const stream = streams.shift();
      if (!stream) throw new Error(`unexpected ${url}`);
      opened.push(stream);
      init.signal?.addEventListener('abort', () => stream.abort());
      return stream.response;
    }
    if (!init.method || init.method === 'GET') return json({ ...chatbot, handoff: opts.handoff ?? true });
    const reply = replies.shift();
    if (!reply) throw new Error(`unexpected ${url}`);
    return typeof reply === 'function' ? reply() : reply;
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    opened,
    posts: () => calls.filter((c) => c.init.method === 'POST'),
    eventCalls: () => calls.filter((c) => c.url.includes('/events?')).map((c) => new URL(c.url, 'http://x').searchParams),
  };
}

async function openChat(embedded = false) {
  render(<PublicChatPage uniqueId="acme" embedded={embedded} reload={vi.fn()} />);
  await screen.findByRole('heading', { level: 1 });
}

async function ask(text: string, answer: string) {
  type(text);
  pressEnter();
  await screen.findByText(answer);
}

const talkButtons = () => screen.queryAllByRole('button', { name: 'Talk to a person' });

const answer = (message: string, extra: Record<string, unknown> = {}) =>
  json({ message, sessionId: 'server-session', messageId: '41', sources: [], offerHandoff: false, unanswered: false, ...extra });

describe('talking to a person', () => {
  beforeEach(() => {
    localStorage.setItem('chatSessionId_acme', 'local-session1');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('offers "Talk to a person" once the conversation exists, and only when the chatbot allows it', async () => {
    mockApi([answer('Hello!')]);
    await openChat();
    expect(talkButtons()).toHaveLength(0);
    await ask('Hi', 'Hello!');
    expect(await screen.findAllByRole('button', { name: 'Talk to a person' })).toHaveLength(1);
  });

  it('never offers a person when the chatbot has handoff off', async () => {
    mockApi([answer('Hello!', { offerHandoff: true })], { handoff: false });
    await openChat();
    await ask('Hi', 'Hello!');
    // The handoff components load on their own: once they have, there is still no button.
    await act(async () => {
      await import('../components/handoff');
    });
    expect(talkButtons()).toHaveLength(0);
  });

  it("shows the bot's offer under an answer that makes one (and no second button)", async () => {
    mockApi([answer('I could not find that.', { offerHandoff: true, unanswered: true })]);
    await openChat();
    await ask('Where is my parcel?', 'I could not find that.');
    const row = screen.getByText('I could not find that.').closest('[data-testid="assistant-message"]') as HTMLElement;
    expect(await within(row).findByText('Would you like to talk to a person?')).toBeTruthy();
    expect(within(row).getByRole('button', { name: 'Talk to a person' })).toBeTruthy();
    expect(talkButtons()).toHaveLength(1);
  });

  it("waits for a person, shows the agent's replies live with their name, keeps the bot silent, and goes back to the bot", async () => {
    const stream = conversationStream();
    const api = mockApi(
      [
        answer('Hello!'),
        json({ status: 'waiting', agentName: null, waitingSince: '2026-01-01T10:00:00.000Z' }),
        json({ message: '', sessionId: 'server-session', messageId: '', sources: [], handoff: { status: 'human', agentName: 'Ada' } }),
        answer('The bot again.', { messageId: '60' }),
      ],
      { streams: [stream] },
    );
    await openChat();
    await ask('Hi', 'Hello!');

    fireEvent.click(await screen.findByRole('button', { name: 'Talk to a person' }));
    expect(await screen.findByText('Waiting for a person…')).toBeTruthy();
    expect(api.posts()[1].url).toBe('/api/chatbot/public/acme/handoff');
    expect(bodyOf(api.posts()[1])).toEqual({ sessionId: 'server-session' });
    // The stream starts after the newest message the page has.
    await waitFor(() => expect(api.eventCalls()).toHaveLength(1));
    expect(Object.fromEntries(api.eventCalls()[0])).toEqual({ sessionId: 'server-session', after: '41' });
    expect((api.calls.find((c) => c.url.includes('/events?'))!.init.headers as Record<string, string>).accept).toBe('text/event-stream');
    expect(talkButtons()).toHaveLength(0);

    await stream.state({ status: 'waiting', waitingSince: '2026-01-01T10:00:00.000Z' });
    await stream.ping();
    await stream.state({ status: 'human', agentName: 'Ada' });
    expect(await screen.findByText('Ada is answering')).toBeTruthy();
    expect(screen.queryByText('Waiting for a person…')).toBeNull();
    await stream.message('42', { role: 'agent', content: 'Hi, I am Ada. How can I help?', authorName: 'Ada' });
    const bubble = (await screen.findByText('Hi, I am Ada. How can I help?')).closest('[data-testid="agent-message"]') as HTMLElement;
    expect(within(bubble).getByText('Ada')).toBeTruthy();
    // The visitor's own messages come back on the stream; the page shows them once.
    await stream.message('43', { role: 'user', content: 'Hi' });
    expect(screen.getAllByText('Hi')).toHaveLength(1);

    // The visitor's message still goes out; the bot stays silent.
    await ask('My order is late', 'My order is late');
    await waitFor(() => expect(api.posts()).toHaveLength(3));
    await waitFor(() => expect(screen.queryByRole('status', { name: /typing/ })).toBeNull());
    expect(screen.getAllByTestId('assistant-message')).toHaveLength(1);
    expect(screen.getByText('Ada is answering')).toBeTruthy();

    // Handed back: the banner goes, the stream is closed, the bot answers again.
    await stream.state({ status: 'bot' });
    await waitFor(() => expect(screen.queryByText('Ada is answering')).toBeNull());
    expect(stream.aborted).toBe(true);
    expect(localStorage.getItem('chatHandoff_acme_server-session')).toBeNull();
    await ask('Thanks', 'The bot again.');
    expect(api.eventCalls()).toHaveLength(1);
    // The agent's reply is kept with the conversation.
    expect(JSON.parse(localStorage.getItem('chatMessages_acme_server-session') ?? '[]')).toContainEqual({
      role: 'agent',
      content: 'Hi, I am Ada. How can I help?',
      messageId: '42',
      authorName: 'Ada',
    });
  });

  it('says why when asking for a person fails, and lets the visitor try again', async () => {
    mockApi([answer('Hello!'), json({ message: 'Handoff is not available for this chatbot' }, 400)]);
    await openChat();
    await ask('Hi', 'Hello!');
    fireEvent.click(await screen.findByRole('button', { name: 'Talk to a person' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Handoff is not available for this chatbot');
    expect(talkButtons()).toHaveLength(1);
    expect(screen.queryByText('Waiting for a person…')).toBeNull();
  });

  it('reconnects after the stream breaks, from the last message it delivered', async () => {
    const first = conversationStream();
    const second = conversationStream();
    const api = mockApi([answer('Hello!'), json({ status: 'waiting', agentName: null, waitingSince: null })], { streams: [first, second] });
    await openChat();
    await ask('Hi', 'Hello!');
    fireEvent.click(await screen.findByRole('button', { name: 'Talk to a person' }));
    await waitFor(() => expect(api.eventCalls()).toHaveLength(1));
    await first.message('44', { role: 'agent', content: 'One moment', authorName: 'Ada' });
    await first.end();
    await waitFor(() => expect(api.eventCalls()).toHaveLength(2), { timeout: 4000 });
    expect(api.eventCalls()[1].get('after')).toBe('44');
    // A message delivered twice (the catch-up after a break) shows once.
    await second.message('44', { role: 'agent', content: 'One moment', authorName: 'Ada' });
    await second.message('45', { role: 'agent', content: 'Found it', authorName: 'Ada' });
    expect(await screen.findByText('Found it')).toBeTruthy();
    expect(screen.getAllByText('One moment')).toHaveLength(1);
  });

  it('picks the wait up again after a reload, inside the widget too', async () => {
    localStorage.setItem('chatSessionId_acme', 'server-session');
    localStorage.setItem('chatMessages_acme_server-session', JSON.stringify([{ role: 'user', content: 'Hi' }]));
    localStorage.setItem('chatHandoff_acme_server-session', JSON.stringify({ status: 'human', agentName: 'Ada', lastEventId: '50' }));
    const stream = conversationStream();
    const api = mockApi([], { streams: [stream] });
    await openChat(true);
    expect(await screen.findByText('Ada is answering')).toBeTruthy();
    await waitFor(() => expect(api.eventCalls()).toHaveLength(1));
    expect(api.eventCalls()[0].get('after')).toBe('50');
    expect((api.calls.find((c) => c.url.includes('/events?'))!.init.headers as Record<string, string>)['x-parley-embed']).toBe('1');
  });

  it('asks for an email when nobody answered in time, and sends it as a handoff_timeout lead', async () => {
    const stream = conversationStream();
    const api = mockApi(
      [
        answer('Hello!'),
        json({ status: 'waiting', agentName: null, waitingSince: null }),
        json({ leadId: 'l1', sessionId: 'server-session' }, 201),
      ],
      { streams: [stream] },
    );
    await openChat();
    await ask('Hi', 'Hello!');
    fireEvent.click(await screen.findByRole('button', { name: 'Talk to a person' }));
    await waitFor(() => expect(api.eventCalls()).toHaveLength(1));
    await stream.message('46', { role: 'system', content: TIMED_OUT_MESSAGE, authorName: null });
    await stream.state({ status: 'bot', timedOut: true });

    expect(await screen.findByText(TIMED_OUT_MESSAGE)).toBeTruthy();
    expect(screen.getAllByText(TIMED_OUT_MESSAGE)).toHaveLength(1);
    expect(screen.queryByText('Waiting for a person…')).toBeNull();
    const email = screen.getByLabelText('Your email');
    fireEvent.input(email, { target: { value: ' visitor@example.com ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('visitor@example.com')).toBeTruthy();
    const lead = api.posts().at(-1)!;
    expect(lead.url).toBe('/api/chatbot/public/acme/lead');
    expect(bodyOf(lead)).toEqual({ sessionId: 'server-session', email: 'visitor@example.com', source: 'handoff_timeout' });
  });

  it("shows the lead path's refusal under the email field", async () => {
    const stream = conversationStream();
    mockApi(
      [
        answer('Hello!'),
        json({ status: 'waiting', agentName: null, waitingSince: null }),
        json({ message: 'Enter a valid email address' }, 400),
      ],
      {
        streams: [stream],
      },
    );
    await openChat();
    await ask('Hi', 'Hello!');
    fireEvent.click(await screen.findByRole('button', { name: 'Talk to a person' }));
    await screen.findByText('Waiting for a person…');
    // The notice shows even when the stream missed it.
    await stream.state({ status: 'bot', timedOut: true });
    expect(await screen.findByText(TIMED_OUT_MESSAGE)).toBeTruthy();
    fireEvent.input(screen.getByLabelText('Your email'), { target: { value: 'nope' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Enter a valid email address');
  });
});

describe('reconnectDelay', () => {
  it('waits about 1 s, doubling each failed attempt, at most 30 s', () => {
    const middle = () => 0.5;
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((n) => reconnectDelay(n, middle))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(reconnectDelay(0, () => 0)).toBe(750);
    expect(reconnectDelay(0, () => 1)).toBe(1250);
  });
});
