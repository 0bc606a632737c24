import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PublicChatPage } from '../components/public-chat-page';
import { bodyOf, eventStream, field, json, mockApi, openChat, pressEnter, type } from './public-chat-fixtures';

describe('public chat page', () => {
  beforeEach(() => {
    localStorage.setItem('chatSessionId_acme', 'local-session1');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('loads the chatbot without a sign-in token and shows its initials and the empty state', async () => {
    localStorage.setItem('token', 'owner-token');
    const { calls } = mockApi([]);
    await openChat();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('acme support');
    expect(screen.getAllByText('AC').length).toBeGreaterThan(0);
    expect(screen.getByText('Ask me anything!')).toBeTruthy();
    expect(field().disabled).toBe(false);
    expect(calls[0].url).toBe('/api/chatbot/public/acme');
    const headers = calls[0].init.headers as Record<string, string>;
    expect(headers['content-type']).toBe('application/json');
    expect(Object.keys(headers).map((h) => h.toLowerCase())).not.toContain('authorization');
  });

  it('shows the picture when the chatbot has one', async () => {
    mockApi([], () => json({ name: 'Nova', profilePicture: '/media/chatbots/nova.png' }));
    const { container } = await openChat();
    expect(container.querySelector('header img')?.getAttribute('src')).toBe('/media/chatbots/nova.png');
  });

  it('streams the answer: typing dots, then the words as they arrive, then the full text', async () => {
    const stream = eventStream();
    const { posts } = mockApi([stream.response]);
    await openChat();

    type('  What are your hours?  ');
    fireEvent.click(screen.getByRole('button', { name: 'Send message' }));

    expect(await screen.findByText('What are your hours?')).toBeTruthy();
    expect(field().value).toBe('');
    expect(screen.getByRole('status').textContent).toContain('acme support is typing');
    const [post] = posts();
    expect(post.url).toBe('/api/chatbot/public/acme/chat');
    expect(bodyOf(post)).toEqual({ message: 'What are your hours?', sessionId: 'local-session1', model: 'gpt-4o-mini' });
    const headers = post.init.headers as Record<string, string>;
    expect(headers.accept).toBe('text/event-stream');
    expect(headers['content-type']).toBe('application/json');

    await stream.emit('delta', { delta: 'We open ' });
    expect(screen.getByText('We open')).toBeTruthy();
    expect(screen.queryByText(/is typing/)).toBeNull();
    await stream.emit('delta', { delta: 'at 9.' });
    expect(screen.getByText('We open at 9.')).toBeTruthy();
    expect(field().disabled).toBe(true);

    await stream.emit('done', { message: 'We open at **9am**.', sessionId: 'server-session' });
    await stream.close();
    await waitFor(() => expect(field().disabled).toBe(false));
    expect((await screen.findByText('9am')).tagName).toBe('STRONG');
    expect(document.activeElement).toBe(field());

    // The server's session id replaces the local one, and the conversation moves with it.
    expect(localStorage.getItem('chatSessionId_acme')).toBe('server-session');
    expect(localStorage.getItem('chatMessages_acme_local-session1')).toBeNull();
    expect(JSON.parse(localStorage.getItem('chatMessages_acme_server-session') ?? '[]')).toEqual([
      { role: 'user', content: 'What are your hours?' },
      { role: 'assistant', content: 'We open at **9am**.' },
    ]);
  });

  it("shows the status line while one of the chatbot's actions runs, then the answer in its place", async () => {
    const stream = eventStream();
    mockApi([stream.response]);
    await openChat();
    type('Where is my order #1042?');
    fireEvent.click(screen.getByRole('button', { name: 'Send message' }));
    expect(await screen.findByText('Where is my order #1042?')).toBeTruthy();

    await stream.emit('status', { status: 'Looking up order…' });
    expect(screen.getByRole('status').textContent).toBe('Looking up order…');
    await stream.emit('delta', { delta: 'Your order has shipped.' });
    expect(screen.queryByText('Looking up order…')).toBeNull();
    expect(screen.getByText('Your order has shipped.')).toBeTruthy();
    await stream.emit('done', { message: 'Your order has shipped.', sessionId: 'local-session1' });
    await stream.close();
    await waitFor(() => expect(field().disabled).toBe(false));
  });

  it('sends the server-given session id with the next message', async () => {
    const { posts } = mockApi([
      json({ message: 'First answer', sessionId: 'server-session' }),
      json({ message: 'Second answer', sessionId: 'server-session' }),
    ]);
    await openChat();
    type('one');
    pressEnter();
    await screen.findByText('First answer');
    type('two');
    pressEnter();
    await screen.findByText('Second answer');
    expect(posts().map((p) => bodyOf(p).sessionId)).toEqual(['local-session1', 'server-session']);
  });

  it('makes up a 13-character session id when none is stored, and keeps it', async () => {
    localStorage.clear();
    const { posts } = mockApi([json({ message: 'Hi', sessionId: '' })]);
    await openChat();
    const stored = localStorage.getItem('chatSessionId_acme') ?? '';
    expect(stored).toMatch(/^[0-9a-z]{13}$/);
    type('hello');
    pressEnter();
    await screen.findByText('Hi');
    expect(bodyOf(posts()[0]).sessionId).toBe(stored);
    expect(localStorage.getItem('chatSessionId_acme')).toBe(stored);
  });

  it('restores the conversation of the stored session after a reload', async () => {
    mockApi([json({ message: 'Answer **one**', sessionId: 'local-session1' })]);
    const first = await openChat();
    type('Question one');
    pressEnter();
    await screen.findByText('one');
    first.unmount();

    await openChat();
    expect(screen.getByText('Question one')).toBeTruthy();
    expect(screen.getByText('one').tagName).toBe('STRONG');
    expect(screen.queryByText('Ask me anything!')).toBeNull();
  });

  it('ignores unreadable stored messages', async () => {
    localStorage.setItem('chatMessages_acme_local-session1', '{not json');
    mockApi([]);
    await openChat();
    expect(screen.getByText('Ask me anything!')).toBeTruthy();
  });

  it('clears the list and its stored copy with the X button, keeping the session', async () => {
    localStorage.setItem(
      'chatMessages_acme_local-session1',
      JSON.stringify([
        { role: 'user', content: 'Old question' },
        { role: 'assistant', content: 'Old answer' },
      ]),
    );
    mockApi([]);
    await openChat();
    expect(screen.getByText('Old answer')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Clear conversation' }));
    expect(screen.queryByText('Old answer')).toBeNull();
    expect(screen.getByText('Ask me anything!')).toBeTruthy();
    expect(localStorage.getItem('chatMessages_acme_local-session1')).toBeNull();
    expect(localStorage.getItem('chatSessionId_acme')).toBe('local-session1');
  });

  it('blocks sending (and clearing) while a reply is pending', async () => {
    const stream = eventStream();
    const { posts } = mockApi([stream.response]);
    await openChat();
    type('first');
    pressEnter();
    await screen.findByText('first');
    expect(field().disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Send message' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Clear conversation' }) as HTMLButtonElement).disabled).toBe(true);
    // Even a submit that slips through is ignored.
    fireEvent.submit(field().closest('form') as HTMLFormElement);
    pressEnter();
    expect(posts()).toHaveLength(1);

    await stream.emit('done', { message: 'ok', sessionId: 'local-session1' });
    await stream.close();
    await waitFor(() => expect(field().disabled).toBe(false));
  });

  it('ignores empty and whitespace-only messages', async () => {
    const { posts } = mockApi([]);
    await openChat();
    const send = screen.getByRole('button', { name: 'Send message' }) as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    type('   \n  ');
    expect(send.disabled).toBe(true);
    pressEnter();
    fireEvent.submit(field().closest('form') as HTMLFormElement);
    expect(posts()).toHaveLength(0);
    expect(screen.getByText('Ask me anything!')).toBeTruthy();
  });

  it('keeps Shift+Enter for a new line', async () => {
    const { posts } = mockApi([]);
    await openChat();
    type('line one');
    fireEvent.keyDown(field(), { key: 'Enter', shiftKey: true });
    expect(posts()).toHaveLength(0);
  });

  it('replaces the page with the server message and Try Again when the chatbot cannot load', async () => {
    mockApi([], () => json({ message: 'Chatbot not found or inactive' }, 404));
    const reload = vi.fn();
    render(<PublicChatPage uniqueId="acme" reload={reload} />);
    expect((await screen.findByRole('alert')).textContent).toBe('Chatbot not found or inactive');
    expect(screen.queryByPlaceholderText('Type your message...')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('falls back to "Chatbot not found or inactive" when loading fails without a message', async () => {
    mockApi([], new TypeError('Failed to fetch'));
    render(<PublicChatPage uniqueId="acme" />);
    expect((await screen.findByRole('alert')).textContent).toBe('Chatbot not found or inactive');
  });

  it('shows "Chatbot not found or inactive" without asking the server when the address has no id', async () => {
    const { calls } = mockApi([]);
    render(<PublicChatPage uniqueId="" />);
    expect((await screen.findByRole('alert')).textContent).toBe('Chatbot not found or inactive');
    expect(calls).toHaveLength(0);
  });

  it.each([
    [
      'an error status with a message',
      () => json({ message: 'Too many messages. Please wait a minute.' }, 429),
      'Too many messages. Please wait a minute.',
    ],
    [
      'an error status without a message',
      () => new Response('<html>Bad gateway</html>', { status: 502 }),
      'Failed to get response from chatbot',
    ],
    ['a network failure', () => new TypeError('Failed to fetch'), 'Failed to get response from chatbot'],
  ])('replaces the page with the send error on %s', async (_case, reply, text) => {
    const answer = reply();
    mockApi([answer]);
    const { reload } = await openChat();
    type('hello');
    pressEnter();
    expect((await screen.findByRole('alert')).textContent).toBe(text);
    expect(screen.queryByPlaceholderText('Type your message...')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('replaces the page with the error sent mid-stream', async () => {
    const stream = eventStream();
    mockApi([stream.response]);
    await openChat();
    type('hello');
    pressEnter();
    await stream.emit('delta', { delta: 'Partial' });
    await stream.emit('error', { message: 'The model is unavailable right now.' });
    expect((await screen.findByRole('alert')).textContent).toBe('The model is unavailable right now.');
  });

  it('treats a stream that ends before "done" as a failed send', async () => {
    const stream = eventStream();
    mockApi([stream.response]);
    await openChat();
    type('hello');
    pressEnter();
    await stream.emit('delta', { delta: 'Partial' });
    await stream.close();
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to get response from chatbot');
  });

  it('renders Markdown answers without raw HTML, unsafe links or remote images', async () => {
    mockApi([
      json({
        message: [
          'Hello <img src=x onerror=alert(1)> <b>bold?</b>',
          '',
          '[bad](javascript:alert(1)) [data](data:text/html,hi) [guide](https://example.com/guide) [mail](mailto:help@example.com)',
          '',
          '![tracker](https://evil.example/pixel.png)',
        ].join('\n'),
        sessionId: 'local-session1',
      }),
    ]);
    const { container } = await openChat();
    type('hi');
    pressEnter();
    const log = await screen.findByRole('log');
    await within(log).findByText('guide');

    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(within(log).getByText(/<img src=x onerror=alert\(1\)>/)).toBeTruthy();
    expect(within(log).getByText('bad').closest('a')).toBeNull();
    expect(within(log).getByText('data').closest('a')).toBeNull();
    const guide = within(log).getByRole('link', { name: 'guide' });
    expect(guide.getAttribute('href')).toBe('https://example.com/guide');
    expect(guide.getAttribute('target')).toBe('_blank');
    expect(guide.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(within(log).getByRole('link', { name: 'mail' }).getAttribute('href')).toBe('mailto:help@example.com');
    expect(within(log).getByRole('link', { name: 'tracker' }).getAttribute('href')).toBe('https://evil.example/pixel.png');
    expect(container.querySelectorAll('a[href^="javascript:"], a[href^="data:"]')).toHaveLength(0);
  });

  it("shows the visitor's own text as typed, never as Markdown or HTML", async () => {
    mockApi([json({ message: 'ok', sessionId: 'local-session1' })]);
    const { container } = await openChat();
    type('**not bold** <img src=x>');
    pressEnter();
    expect(await screen.findByText('**not bold** <img src=x>')).toBeTruthy();
    expect(container.querySelector('img')).toBeNull();
  });
});
