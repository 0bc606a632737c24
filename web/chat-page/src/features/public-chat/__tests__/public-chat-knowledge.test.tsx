import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bodyOf, eventStream, field, json, mockApi, openChat, pressEnter, type } from './public-chat-fixtures';

const welcoming = {
  name: 'acme support',
  profilePicture: null,
  welcomeMessage: 'Hi! I can help with **orders** and returns.',
  suggestedQuestions: ['What are your hours?', '  ', 'How do I return an item?'],
};

const sources = [
  { entryId: 'e1', title: 'Opening hours', url: 'https://acme.example/hours' },
  { entryId: 'e2', title: 'Store handbook.pdf' },
  { entryId: 'e3', title: 'Returns Q&A', url: 'javascript:alert(1)' },
];

function stored(sessionId = 'local-session1') {
  return JSON.parse(localStorage.getItem(`chatMessages_acme_${sessionId}`) ?? 'null') as unknown;
}

function log() {
  return screen.getByRole('log');
}

function suggestions() {
  return screen.queryByRole('group', { name: 'Suggested questions' });
}

describe('public chat page: welcome, suggested questions and sources', () => {
  beforeEach(() => {
    localStorage.setItem('chatSessionId_acme', 'local-session1');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('opens with the welcome as the first assistant bubble, without sending or storing it', async () => {
    const { calls } = mockApi([], () => json(welcoming));
    await openChat();
    // Markdown (loaded on demand: plain text until then).
    expect((await within(log()).findByText('orders')).tagName).toBe('STRONG');
    expect(screen.queryByText('Ask me anything!')).toBeNull();
    expect((screen.getByRole('button', { name: 'Clear conversation' }) as HTMLButtonElement).disabled).toBe(true);
    expect(calls).toHaveLength(1);
    expect(stored()).toBeNull();
  });

  it('shows the suggested questions as buttons; a click asks it and the chips go away', async () => {
    const stream = eventStream();
    const { posts } = mockApi([stream.response], () => json(welcoming));
    await openChat();
    const chips = within(suggestions() as HTMLElement).getAllByRole('button');
    expect(chips.map((chip) => chip.textContent)).toEqual(['What are your hours?', 'How do I return an item?']);

    fireEvent.click(screen.getByRole('button', { name: 'What are your hours?' }));
    expect(await within(log()).findByText('What are your hours?')).toBeTruthy();
    expect(suggestions()).toBeNull();
    expect(bodyOf(posts()[0])).toEqual({ message: 'What are your hours?', sessionId: 'local-session1', model: 'gpt-4o-mini' });

    await stream.emit('done', { message: 'From 9am.', sessionId: 'local-session1', sources: [] });
    await stream.close();
    await waitFor(() => expect(field().disabled).toBe(false));
    expect(suggestions()).toBeNull();
    // The welcome is kept as the first bubble of the conversation, marked so it is never counted.
    expect(stored()).toEqual([
      { role: 'assistant', content: welcoming.welcomeMessage, welcome: true },
      { role: 'user', content: 'What are your hours?' },
      { role: 'assistant', content: 'From 9am.' },
    ]);
  });

  it('offers the suggestions under the empty state when there is no welcome, and again after Clear', async () => {
    mockApi([json({ message: 'Sure.', sessionId: 'local-session1' })], () =>
      json({ name: 'acme support', profilePicture: null, suggestedQuestions: ['Track my order'] }),
    );
    await openChat();
    expect(screen.getByText('Ask me anything!')).toBeTruthy();
    fireEvent.click(within(suggestions() as HTMLElement).getByRole('button', { name: 'Track my order' }));
    await screen.findByText('Sure.');
    expect(suggestions()).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Clear conversation' }));
    expect(screen.getByRole('button', { name: 'Track my order' })).toBeTruthy();
  });

  it('streams, then replaces the text with the done message and its sources: badges, links and plain titles', async () => {
    const stream = eventStream();
    mockApi([stream.response], () => json(welcoming));
    const { container } = await openChat();
    type('hours and returns?');
    pressEnter();
    await stream.emit('delta', { delta: 'We open at 9 [7].' });
    expect(within(log()).getByText('We open at 9 [7].')).toBeTruthy();

    await stream.emit('done', {
      message: 'We open at 9am [1]. Returns take 30 days [2][3]. See `[1]` and [4].',
      sessionId: 'local-session1',
      sources,
    });
    await stream.close();
    await waitFor(() => expect(field().disabled).toBe(false));

    const badges = [...container.querySelectorAll('sup[data-citation]')];
    expect(badges.map((badge) => badge.textContent)).toEqual(['source 1', 'source 2', 'source 3']);
    expect(badges[0].getAttribute('title')).toBe('Opening hours');
    expect(badges[0].closest('a')).toBeNull();
    // Code stays as written, and a marker with no source behind it stays text.
    expect(within(log()).getByText('[1]').tagName).toBe('CODE');
    expect(within(log()).getByText(/and \[4\]\./)).toBeTruthy();

    const toggle = screen.getByRole('button', { name: 'Sources (3)' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByRole('list', { name: 'Sources' })).toBeNull();
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const list = screen.getByRole('list', { name: 'Sources' });
    expect(toggle.getAttribute('aria-controls')).toBe(list.id);
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(3);

    const link = within(items[0]).getByRole('link');
    expect(link.getAttribute('href')).toBe('https://acme.example/hours');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(link.textContent).toContain('Opening hours');
    expect(within(items[1]).queryByRole('link')).toBeNull();
    expect(items[1].textContent).toContain('Store handbook.pdf');
    // An address that is not http(s) is never a link.
    expect(within(items[2]).queryByRole('link')).toBeNull();
    expect(items[2].textContent).toContain('Returns Q&A');

    fireEvent.click(toggle);
    expect(screen.queryByRole('list', { name: 'Sources' })).toBeNull();
  });

  it('shows no Sources toggle and no badges for an answer that cites nothing', async () => {
    mockApi([json({ message: 'I do not know [1].', sessionId: 'local-session1', sources: [] })], () => json(welcoming));
    const { container } = await openChat();
    type('anything?');
    pressEnter();
    await screen.findByText('I do not know [1].');
    expect(screen.queryByRole('button', { name: /^Sources/ })).toBeNull();
    expect(container.querySelector('sup')).toBeNull();
  });

  it('restores the conversation with its welcome and sources after a reload', async () => {
    mockApi([json({ message: 'At 9am [1].', sessionId: 'local-session1', sources: sources.slice(0, 1) })], () => json(welcoming));
    const first = await openChat();
    fireEvent.click(screen.getByRole('button', { name: 'What are your hours?' }));
    await screen.findByRole('button', { name: 'Sources (1)' });
    first.unmount();

    mockApi([], () => json({ ...welcoming, welcomeMessage: 'A newer greeting' }));
    const { container } = await openChat();
    // The bubble the visitor saw first, not the chatbot's newer welcome.
    expect(within(log()).getByText('orders')).toBeTruthy();
    expect(screen.queryByText('A newer greeting')).toBeNull();
    expect(suggestions()).toBeNull();
    expect(container.querySelector('sup[data-citation]')?.textContent).toBe('source 1');
    fireEvent.click(screen.getByRole('button', { name: 'Sources (1)' }));
    expect(screen.getByRole('link', { name: /Opening hours/ }).getAttribute('href')).toBe('https://acme.example/hours');
  });

  it('does not add a welcome to a conversation that began without one', async () => {
    localStorage.setItem(
      'chatMessages_acme_local-session1',
      JSON.stringify([
        { role: 'user', content: 'Old question' },
        { role: 'assistant', content: 'Old answer', sources: 'not a list' },
        { role: 'assistant', content: 'A stray welcome', welcome: true },
      ]),
    );
    mockApi([], () => json(welcoming));
    await openChat();
    expect(screen.getByText('Old answer')).toBeTruthy();
    expect(screen.queryByText('orders')).toBeNull();
    expect(screen.queryByText('A stray welcome')).toBeNull();
    expect(screen.queryByRole('button', { name: /^Sources/ })).toBeNull();
    expect(suggestions()).toBeNull();
  });
});
