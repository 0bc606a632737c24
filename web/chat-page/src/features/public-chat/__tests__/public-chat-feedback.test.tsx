// Thumbs on the public page's answers: only a stored answer can be rated, the choice shows at
// once and can change, a failed save puts the old one back, and the rating is kept with the conversation.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bodyOf, eventStream, field, json, mockApi, openChat, pressEnter, type } from './public-chat-fixtures';

const welcoming = { name: 'acme support', profilePicture: null, welcomeMessage: 'Hi! Ask me anything.' };

function stored(sessionId = 'local-session1') {
  return JSON.parse(localStorage.getItem(`chatMessages_acme_${sessionId}`) ?? 'null') as unknown;
}

function good() {
  return screen.getByRole('button', { name: 'Good answer' });
}

function bad() {
  return screen.getByRole('button', { name: 'Bad answer' });
}

function pressed(button: HTMLElement) {
  return button.getAttribute('aria-pressed');
}

/** A response the test sends when it chooses, to look at the page while the request is in flight. */
function deferred() {
  let resolve!: (response: Response) => void;
  const promise = new Promise<Response>((r) => void (resolve = r));
  return {
    reply: () => promise,
    async settle(response: Response) {
      await act(async () => {
        resolve(response);
        await new Promise((r) => setTimeout(r, 0));
      });
    },
  };
}

async function ask(question: string, answer: string) {
  type(question);
  pressEnter();
  await screen.findByText(answer);
  await waitFor(() => expect(field().disabled).toBe(false));
}

describe('public chat page: feedback on answers', () => {
  beforeEach(() => {
    localStorage.setItem('chatSessionId_acme', 'local-session1');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('offers thumbs only under an answer with a messageId: not the welcome, the streaming answer or an answer without one', async () => {
    const stream = eventStream();
    mockApi([json({ message: 'No id here.', sessionId: 'local-session1' }), stream.response], () => json(welcoming));
    await openChat();
    expect(screen.queryByRole('group', { name: 'Rate this answer' })).toBeNull();

    await ask('first?', 'No id here.');
    expect(screen.queryByRole('group', { name: 'Rate this answer' })).toBeNull();

    type('second?');
    pressEnter();
    await stream.emit('delta', { delta: 'Streaming words' });
    expect(screen.queryByRole('group', { name: 'Rate this answer' })).toBeNull();
    await stream.emit('done', { message: 'Stored answer.', sessionId: 'local-session1', messageId: 'm-2' });
    await stream.close();
    await waitFor(() => expect(field().disabled).toBe(false));

    const groups = screen.getAllByRole('group', { name: 'Rate this answer' });
    expect(groups).toHaveLength(1);
    const row = screen.getByText('Stored answer.').closest('[data-testid="assistant-message"]') as HTMLElement;
    expect(within(row).getByRole('group', { name: 'Rate this answer' })).toBe(groups[0]);
    expect(pressed(good())).toBe('false');
    expect(pressed(bad())).toBe('false');
    // Plain buttons: reachable with Tab, pressed with Enter or Space.
    expect(good().tagName).toBe('BUTTON');
    good().focus();
    expect(document.activeElement).toBe(good());
  });

  it('sits beside the Sources toggle of an answer that cites something', async () => {
    mockApi([json({ message: 'At 9 [1].', sessionId: 'local-session1', messageId: 'm-1', sources: [{ entryId: 'e1', title: 'Hours' }] })]);
    await openChat();
    type('hours?');
    pressEnter();
    const toggle = await screen.findByRole('button', { name: 'Sources (1)' });
    expect(toggle.parentElement?.contains(good())).toBe(true);
  });

  it('sends the rating for the message and session, highlights it, thanks the visitor and keeps it', async () => {
    const { posts } = mockApi([
      json({ message: 'We open at 9.', sessionId: 'server-session', messageId: 'm-1' }),
      json({ messageId: 'm-1', rating: 'up' }),
    ]);
    await openChat();
    await ask('hours?', 'We open at 9.');

    fireEvent.click(good());
    expect(pressed(good())).toBe('true');
    expect(await screen.findByText('Thanks for the feedback')).toBeTruthy();

    const feedback = posts()[1];
    expect(feedback.url).toBe('/api/chatbot/public/acme/feedback');
    expect(bodyOf(feedback)).toEqual({ sessionId: 'server-session', messageId: 'm-1', rating: 'up' });
    expect((feedback.init.headers as Record<string, string>)['content-type']).toBe('application/json');
    expect(stored('server-session')).toEqual([
      { role: 'user', content: 'hours?' },
      { role: 'assistant', content: 'We open at 9.', messageId: 'm-1', rating: 'up' },
    ]);
  });

  it('changes the rating, and sends nothing when the chosen one is pressed again', async () => {
    const { posts } = mockApi([
      json({ message: 'An answer.', sessionId: 'local-session1', messageId: 'm-1' }),
      json({ messageId: 'm-1', rating: 'up' }),
      json({ messageId: 'm-1', rating: 'down' }),
    ]);
    await openChat();
    await ask('q?', 'An answer.');

    fireEvent.click(good());
    await screen.findByText('Thanks for the feedback');
    fireEvent.click(good());
    fireEvent.click(bad());
    expect(pressed(bad())).toBe('true');
    expect(pressed(good())).toBe('false');
    await waitFor(() => expect(posts()).toHaveLength(3));
    expect(bodyOf(posts()[2]).rating).toBe('down');
    await waitFor(() => expect(stored()).toContainEqual({ role: 'assistant', content: 'An answer.', messageId: 'm-1', rating: 'down' }));
  });

  it('ignores a second click while a save is in flight', async () => {
    const save = deferred();
    const { posts } = mockApi([json({ message: 'An answer.', sessionId: 'local-session1', messageId: 'm-1' }), save.reply]);
    await openChat();
    await ask('q?', 'An answer.');
    fireEvent.click(good());
    fireEvent.click(bad());
    expect(pressed(good())).toBe('true');
    await save.settle(json({ messageId: 'm-1', rating: 'up' }));
    expect(posts()).toHaveLength(2);
    expect(screen.getByText('Thanks for the feedback')).toBeTruthy();
  });

  it('shows the choice at once and puts the old rating back with an inline error when the save fails', async () => {
    const save = deferred();
    mockApi([
      json({ message: 'An answer.', sessionId: 'local-session1', messageId: 'm-1' }),
      json({ messageId: 'm-1', rating: 'up' }),
      save.reply,
      new TypeError('Failed to fetch'),
    ]);
    await openChat();
    await ask('q?', 'An answer.');
    fireEvent.click(good());
    await screen.findByText('Thanks for the feedback');

    fireEvent.click(bad());
    expect(pressed(bad())).toBe('true');
    expect(pressed(good())).toBe('false');
    await save.settle(json({ message: 'Too many messages. Please wait a minute.' }, 429));
    expect(pressed(good())).toBe('true');
    expect(pressed(bad())).toBe('false');
    expect(screen.getByText("Couldn't save your feedback")).toBeTruthy();
    expect(screen.queryByText('Thanks for the feedback')).toBeNull();
    // Saved by an effect after the render: waited for, as on a slow machine it can come later.
    await waitFor(() => expect(stored()).toContainEqual({ role: 'assistant', content: 'An answer.', messageId: 'm-1', rating: 'up' }));
    // The page itself carries on: the failure is only the inline line.
    expect(screen.queryByRole('alert')).toBeNull();
    expect(field().disabled).toBe(false);

    // A network failure on the next try rolls back the same way.
    fireEvent.click(bad());
    await waitFor(() => expect(pressed(good())).toBe('true'));
    expect(screen.getByText("Couldn't save your feedback")).toBeTruthy();
  });

  it('rolls a first rating back to none when its save fails', async () => {
    mockApi([json({ message: 'An answer.', sessionId: 'local-session1', messageId: 'm-1' }), json({ message: 'Message not found' }, 404)]);
    await openChat();
    await ask('q?', 'An answer.');
    fireEvent.click(bad());
    await screen.findByText("Couldn't save your feedback");
    expect(pressed(bad())).toBe('false');
    // Saved by an effect after the render: waited for, as on a slow machine it can come later.
    await waitFor(() => expect(stored()).toContainEqual({ role: 'assistant', content: 'An answer.', messageId: 'm-1' }));
  });

  it('restores ratings from storage, and still loads a conversation saved before feedback existed', async () => {
    localStorage.setItem(
      'chatMessages_acme_local-session1',
      JSON.stringify([
        { role: 'user', content: 'Old question' },
        { role: 'assistant', content: 'Old answer without an id', rating: 'up' },
        { role: 'user', content: 'Newer question' },
        { role: 'assistant', content: 'Rated answer', messageId: 'm-7', rating: 'down' },
        { role: 'user', content: 'Last question' },
        { role: 'assistant', content: 'Oddly rated answer', messageId: 'm-8', rating: 'meh' },
      ]),
    );
    const { posts } = mockApi([json({ messageId: 'm-7', rating: 'up' })]);
    await openChat();
    expect(screen.getByText('Old answer without an id')).toBeTruthy();

    const groups = screen.getAllByRole('group', { name: 'Rate this answer' });
    expect(groups).toHaveLength(2);
    const [rated, odd] = groups;
    expect(pressed(within(rated).getByRole('button', { name: 'Bad answer' }))).toBe('true');
    expect(pressed(within(rated).getByRole('button', { name: 'Good answer' }))).toBe('false');
    expect(within(odd).getAllByRole('button').map(pressed)).toEqual(['false', 'false']);

    fireEvent.click(within(rated).getByRole('button', { name: 'Good answer' }));
    await within(rated).findByText('Thanks for the feedback');
    expect(bodyOf(posts()[0])).toEqual({ sessionId: 'local-session1', messageId: 'm-7', rating: 'up' });
    await waitFor(() => expect(stored()).toContainEqual({ role: 'assistant', content: 'Rated answer', messageId: 'm-7', rating: 'up' }));
    expect(stored()).toContainEqual({ role: 'assistant', content: 'Old answer without an id' });
  });
});
