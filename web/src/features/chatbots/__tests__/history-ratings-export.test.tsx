import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { downloadBlob } from '../../../lib/download-file';
import { proUser, sampleChatbot } from '../../../test/chatbot-fixtures';
import { mockLink } from '../../../test/mock-link';
import { renderApp } from '../../../test/render-app';
import { billingAnswers } from '../../../test/usage-fixtures';
import { exportFileName, fileNameSlug } from '../api/conversation-export-api';
import { detailChatbot, knowledgeBaseOf } from './detail-page-fixtures';

vi.mock('../../../lib/download-file', () => ({ downloadBlob: vi.fn(), downloadTextFile: vi.fn() }));

const conversation = {
  __typename: 'Conversation' as const,
  id: 'conv-1',
  sessionId: 'abcdefgh12345',
  createdAt: '2025-03-04T10:00:00.000Z',
  updatedAt: '2025-03-04T10:05:00.000Z',
  userIp: '203.0.113.7',
  visitorId: null,
  visitorName: null,
  messageCount: 4,
  channel: 'web',
};

type Source = { entryId: string; title: string; url: string | null };

function message(id: string, role: 'user' | 'assistant', content: string, rating: string | null = null, sources: Source[] = []) {
  const withType = sources.map((s) => ({ __typename: 'AnswerSource' as const, ...s }));
  return {
    __typename: 'ChatMessage' as const,
    id,
    role,
    content,
    authorName: null,
    timestamp: '2025-03-04T10:01:00.000Z',
    rating,
    sources: withType,
    model: null,
    fallback: false,
  };
}

function openHistory() {
  localStorage.setItem('token', 'good');
  const mock = mockLink({
    ...billingAnswers,
    Me: () => ({ data: { me: proUser } }),
    Chatbots: () => ({ data: { chatbots: [sampleChatbot()] } }),
    Chatbot: () => ({ data: { chatbot: { ...detailChatbot({ name: 'Support Bot!' }), knowledgeBase: knowledgeBaseOf() } } }),
    Conversations: () => ({ data: { conversations: [conversation] } }),
    Conversation: () => ({
      data: {
        conversation: {
          ...conversation,
          userAgent: 'Mozilla/5.0',
          messages: [
            message('m1', 'user', 'When do you open?'),
            message('m2', 'assistant', 'At 9 [1], Saturdays at 10 [2].', 'up', [
              { entryId: 'e1', title: 'Opening hours.pdf', url: null },
              { entryId: 'e2', title: 'Weekend hours', url: 'https://shop.example.com/hours' },
            ]),
            message('m3', 'user', 'And on Sunday?'),
            message('m4', 'assistant', 'I do not know.', 'down'),
            message('m5', 'assistant', 'Anything else?'),
          ],
        },
      },
    }),
  });
  renderApp('/chatbots/c1', mock.link);
  return mock;
}

async function showList() {
  fireEvent.click(await screen.findByRole('tab', { name: 'History' }));
  return screen.findByRole('list', { name: 'Conversations' });
}

describe('History tab: ratings', () => {
  it('shows the thumbs beside each rated answer, with an accessible label', async () => {
    openHistory();
    fireEvent.click(within(await showList()).getByRole('button'));
    const [, good, , bad, unrated] = within(await screen.findByRole('list', { name: 'Messages' })).getAllByRole('listitem');
    expect(within(good).getByRole('img', { name: 'Rated good answer' })).toBeTruthy();
    expect(within(bad).getByRole('img', { name: 'Rated bad answer' })).toBeTruthy();
    expect(within(unrated).queryByRole('img')).toBeNull();
  });
});

describe('History tab: sources', () => {
  it("shows an answer's [n] markers as badges and what it cited, numbered alike, as the visitor saw it", async () => {
    openHistory();
    fireEvent.click(within(await showList()).getByRole('button'));
    const [, cited, , uncited] = within(await screen.findByRole('list', { name: 'Messages' })).getAllByRole('listitem');
    await waitFor(() => expect(cited.querySelectorAll('[data-citation]')).toHaveLength(2));
    expect([...cited.querySelectorAll('[data-citation]')].map((b) => [b.textContent, b.getAttribute('title')])).toEqual([
      ['source 1', 'Opening hours.pdf'],
      ['source 2', 'Weekend hours'],
    ]);
    expect(cited.textContent).not.toContain('[1]');
    const toggle = within(cited).getByRole('button', { name: 'Sources (2)' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    const list = within(cited).getByRole('list', { name: 'Sources' });
    expect(within(list).getByText('Opening hours.pdf').closest('a')).toBeNull();
    expect(
      within(list)
        .getByRole('link', { name: /Weekend hours/ })
        .getAttribute('href'),
    ).toBe('https://shop.example.com/hours');
    expect(within(uncited).queryByRole('button', { name: /Sources/ })).toBeNull();
  });
});

describe('History tab: export', () => {
  const fetchMock = vi.fn<typeof fetch>();
  beforeEach(() => vi.stubGlobal('fetch', fetchMock));
  afterEach(() => {
    vi.unstubAllGlobals();
    fetchMock.mockReset();
    vi.mocked(downloadBlob).mockClear();
  });

  it.each([
    ['Download CSV', 'csv', 'attachment; filename="support-bot-conversations.csv"', 'support-bot-conversations.csv'],
    ['Download JSONL', 'jsonl', null, 'support-bot-conversations.jsonl'],
  ])('%s fetches the export with the owner token and saves it', async (label, format, disposition, fileName) => {
    const body = format === 'csv' ? 'conversation_id,session_id\r\nconv-1,abc\r\n' : '{"conversationId":"conv-1"}\n';
    fetchMock.mockResolvedValue(new Response(body, { status: 200, headers: disposition ? { 'content-disposition': disposition } : {} }));
    openHistory();
    await showList();
    fireEvent.click(screen.getByRole('button', { name: label }));

    await waitFor(() => expect(downloadBlob).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe(`/api/chatbot/c1/conversations/export?format=${format}`);
    expect(new Headers(init?.headers).get('authorization')).toBe('Bearer good');
    const [savedAs, blob] = vi.mocked(downloadBlob).mock.calls[0]!;
    expect(savedAs).toBe(fileName);
    expect(await blob.text()).toBe(body);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("shows the server's message when the export is refused, and the buttons work again", async () => {
    fetchMock.mockResolvedValue(new Response(JSON.stringify({ message: 'Upgrade to Pro to export conversations' }), { status: 403 }));
    openHistory();
    await showList();
    fireEvent.click(screen.getByRole('button', { name: 'Download CSV' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Upgrade to Pro to export conversations');
    expect(downloadBlob).not.toHaveBeenCalled();
    expect((screen.getByRole('button', { name: 'Download JSONL' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('says it could not download when the network fails', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    openHistory();
    await showList();
    fireEvent.click(screen.getByRole('button', { name: 'Download JSONL' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Could not download the conversations. Please try again.');
  });

  it('names the file from the header, else from the chatbot name', () => {
    expect(exportFileName("attachment; filename*=UTF-8''caf%C3%A9-conversations.csv", 'x', 'csv')).toBe('café-conversations.csv');
    expect(exportFileName('attachment; filename=plain.jsonl', 'x', 'jsonl')).toBe('plain.jsonl');
    expect(exportFileName(null, 'Café Bot ✨', 'csv')).toBe('cafe-bot-conversations.csv');
    expect(fileNameSlug('!!!')).toBe('chatbot');
  });
});
