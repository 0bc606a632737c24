// The chat page inside the widget (/embed/{uniqueId}), its appearance and the proof of work.
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createChallenge, verifySolution } from 'altcha-lib/v1';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PublicChatPage } from '../components/public-chat-page';
import { bodyOf, chatbot, field, json, mockApi, openChat, pressEnter, type } from './public-chat-fixtures';

/** A stand-in for the host page's window: a real window (the iframe's), so it can be a message's source. */
function fakeParent() {
  const frame = document.createElement('iframe');
  document.body.append(frame);
  const parent = frame.contentWindow as Window;
  const postMessage = vi.spyOn(parent, 'postMessage').mockImplementation(() => undefined);
  vi.spyOn(window, 'parent', 'get').mockReturnValue(parent as Window & typeof globalThis);
  return { parent, postMessage, sent: () => postMessage.mock.calls.map(([message]) => message) };
}

function fromWindow(source: Window, data: unknown) {
  act(() => {
    window.dispatchEvent(new MessageEvent('message', { data, source, origin: 'https://shop.example' }));
  });
}

async function openEmbed() {
  render(<PublicChatPage uniqueId="acme" embedded reload={vi.fn()} />);
  await screen.findByRole('heading', { level: 1 });
}

function headerOf(init: RequestInit, name: string) {
  return (init.headers as Record<string, string>)[name];
}

describe('public chat page inside the widget (embed mode)', () => {
  beforeEach(() => {
    localStorage.setItem('chatSessionId_acme', 'local-session1');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('marks every call as embedded and tells the host page it is ready', async () => {
    const host = fakeParent();
    const { calls } = mockApi([json({ message: 'Hello', sessionId: 'local-session1' })]);
    await openEmbed();
    type('hi');
    pressEnter();
    await screen.findByText('Hello');
    expect(calls.map((call) => headerOf(call.init, 'x-parley-embed'))).toEqual(['1', '1']);
    expect(host.sent()).toContainEqual({ type: 'parley:ready' });
  });

  it("sends the host page's visitor with each message, and only from the parent window", async () => {
    const host = fakeParent();
    const { posts } = mockApi([
      json({ message: 'One', sessionId: 'local-session1' }),
      json({ message: 'Two', sessionId: 'local-session1' }),
    ]);
    await openEmbed();
    fromWindow(window, { type: 'parley:identify', visitor: { id: 'intruder' } });
    type('first');
    pressEnter();
    await screen.findByText('One');
    expect(bodyOf(posts()[0])).not.toHaveProperty('visitor');

    fromWindow(host.parent, { type: 'parley:identify', visitor: { id: ' 42 ', name: 'Ada' } });
    type('second');
    pressEnter();
    await screen.findByText('Two');
    expect(bodyOf(posts()[1])).toEqual({
      message: 'second',
      sessionId: 'local-session1',
      model: 'gpt-4o-mini',
      visitor: { id: '42', name: 'Ada' },
    });
  });

  it("sends a verified identity's email and userHash with each message (identify with userId and userHash)", async () => {
    const host = fakeParent();
    const { posts } = mockApi([json({ message: 'One', sessionId: 'local-session1' })]);
    await openEmbed();
    const userHash = 'c0ffee'.repeat(10) + 'abcd';
    fromWindow(host.parent, { type: 'parley:identify', visitor: { userId: 'user-42', email: 'ada@example.com', name: 'Ada', userHash } });
    type('first');
    pressEnter();
    await screen.findByText('One');
    expect(bodyOf(posts()[0])).toMatchObject({ visitor: { id: 'user-42', name: 'Ada', email: 'ada@example.com', userHash } });
  });

  it('asks the host page to close with the close button and with Esc, and focuses the field on open', async () => {
    const host = fakeParent();
    mockApi([]);
    await openEmbed();
    fireEvent.click(screen.getByRole('button', { name: 'Close chat' }));
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(host.sent().filter((m) => (m as { type: string }).type === 'parley:close')).toHaveLength(2);

    fromWindow(host.parent, { type: 'parley:open' });
    expect(document.activeElement).toBe(field());
  });

  it('offers Close chat beside Try Again when the chat is refused', async () => {
    const host = fakeParent();
    mockApi([], () => json({ message: 'This chatbot is not available on this website.' }, 403));
    render(<PublicChatPage uniqueId="acme" embedded reload={vi.fn()} />);
    expect((await screen.findByRole('alert')).textContent).toBe('This chatbot is not available on this website.');
    fireEvent.click(screen.getByRole('button', { name: 'Close chat' }));
    expect(host.sent()).toContainEqual({ type: 'parley:close' });
  });

  it('has no close button, no embed header and no listener on the public page', async () => {
    const { calls } = mockApi([]);
    await openChat();
    expect(screen.queryByRole('button', { name: 'Close chat' })).toBeNull();
    expect(headerOf(calls[0].init, 'x-parley-embed')).toBeUndefined();
  });
});

describe('appearance on the public page', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("shows the Powered by Parley badge, linking to the product's home, and Parley's colour by default", async () => {
    mockApi([]);
    const { container } = await openChat();
    const badge = screen.getByRole('link', { name: 'Powered by Parley' });
    expect(badge.getAttribute('href')).toBe('/');
    expect(badge.getAttribute('target')).toBe('_blank');
    expect(badge.getAttribute('rel')).toContain('noopener');
    expect((container.firstElementChild as HTMLElement).style.getPropertyValue('--color-brand-600')).toBe('');
  });

  it("hides the badge when the owner hid it, and paints the accent in the owner's colour", async () => {
    mockApi([], () =>
      json({ ...chatbot, appearance: { primaryColor: '#0a7b3e', position: 'left', launcherLabel: '', hideBranding: true } }),
    );
    const { container } = await openChat();
    expect(screen.queryByRole('link', { name: 'Powered by Parley' })).toBeNull();
    const themed = container.firstElementChild as HTMLElement;
    expect(themed.style.getPropertyValue('--color-brand-600')).toBe('#0a7b3e');
    expect(themed.style.getPropertyValue('--color-on-brand')).toBe('#ffffff');
  });

  it('shows a visitor limit refusal as the page shows every send error', async () => {
    mockApi([json({ message: "You've reached today's limit for this chat. Please come back tomorrow." }, 429)]);
    await openChat();
    type('hi');
    pressEnter();
    expect((await screen.findByRole('alert')).textContent).toBe("You've reached today's limit for this chat. Please come back tomorrow.");
  });
});

describe('proof of work', () => {
  const hmacKey = 'test-hmac-key';
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("solves the server's challenge before a new conversation's first message, and only then", async () => {
    localStorage.setItem('chatSessionId_acme', 'pow-session');
    const challenge = await createChallenge({ hmacKey, maxnumber: 200, number: 123 });
    const { calls, posts } = mockApi(
      [json({ message: 'First', sessionId: 'pow-session' }), json({ message: 'Second', sessionId: 'pow-session' })],
      () => json({ ...chatbot, proofOfWork: true }),
    );
    // The challenge is a GET as well: answer it apart from the lookup.
    const lookup = vi.mocked(fetch).getMockImplementation()!;
    vi.mocked(fetch).mockImplementation(async (url, init) =>
      String(url).endsWith('/challenge')
        ? (calls.push({ url: String(url), init: init ?? {} }), json(challenge))
        : lookup(url as string, init),
    );
    await openChat();
    type('hello');
    pressEnter();
    await screen.findByText('First');
    const payload = bodyOf(posts()[0]).proofOfWork as string;
    expect(JSON.parse(atob(payload))).toEqual({
      algorithm: 'SHA-256',
      challenge: challenge.challenge,
      number: 123,
      salt: challenge.salt,
      signature: challenge.signature,
    });
    expect(await verifySolution(payload, hmacKey)).toBe(true);

    type('again');
    pressEnter();
    await screen.findByText('Second');
    expect(bodyOf(posts()[1])).not.toHaveProperty('proofOfWork');
    expect(calls.filter((call) => call.url.endsWith('/challenge'))).toHaveLength(1);
  });

  it('shows the refusal when the challenge cannot be had', async () => {
    mockApi([], () => json({ ...chatbot, proofOfWork: true }));
    const lookup = vi.mocked(fetch).getMockImplementation()!;
    vi.mocked(fetch).mockImplementation(async (url, init) =>
      String(url).endsWith('/challenge')
        ? json({ message: 'This chatbot is not available on this website.' }, 403)
        : lookup(url as string, init),
    );
    await openChat();
    type('hello');
    pressEnter();
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('This chatbot is not available on this website.'));
  });
});
