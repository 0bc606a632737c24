import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { graphqlError } from '../../../test/mock-link';
import { KNOWLEDGE_POLL_MS } from '../hooks/use-knowledge-polling';
import { detailChatbot, entryResult, knowledgeBaseOf, openDetail, type EntryOverrides } from './detail-page-fixtures';

/** A stand-in for XMLHttpRequest: the test decides how much is sent and what comes back. */
class FakeXhr {
  static last: FakeXhr | null = null;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown = null;
  status = 0;
  responseText = '';
  upload: { onprogress: ((event: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    act(() => this.upload.onprogress?.({ lengthComputable: true, loaded, total }));
  }
  respond(status: number, body: unknown) {
    this.status = status;
    this.responseText = typeof body === 'string' ? body : JSON.stringify(body);
    act(() => this.onload?.());
  }
}

function restEntry({ id, ...rest }: EntryOverrides) {
  const entry = knowledgeBaseOf([{ id, ...rest }]).textEntries[0];
  const { __typename, id: _id, source, ...fields } = entry;
  void __typename;
  return { _id, ...fields, source: { type: source.type, ...(source.name ? { name: source.name } : {}) } };
}

function openSource(name: string) {
  fireEvent.click(screen.getByRole('tab', { name }));
}

describe('Knowledge sources on the detail page', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    FakeXhr.last = null;
  });

  it('uploads a file with a progress bar and shows the new entry processing', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    openDetail();
    await screen.findByRole('heading', { name: 'Knowledge Base' });
    openSource('File');
    const panel = screen.getByRole('tabpanel', { name: 'File' });
    expect(within(panel).getByText(/up to 20 MB/)).toBeTruthy();
    const input = panel.querySelector('input[type=file]') as HTMLInputElement;
    expect(input.getAttribute('accept')).toBe('.pdf,.docx,.txt,.md,.markdown,.html,.htm');

    const pdf = new File(['%PDF-1.7'], 'handbook.pdf', { type: 'application/pdf' });
    fireEvent.change(input, { target: { files: [pdf] } });
    const xhr = FakeXhr.last as FakeXhr;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/api/chatbot/c1/knowledge-base/files');
    expect(xhr.headers.authorization).toBe('Bearer good');
    expect((xhr.body as FormData).get('file')).toBe(pdf);

    xhr.progress(40, 100);
    const bar = screen.getByRole('progressbar', { name: 'Uploading handbook.pdf' });
    expect(bar.getAttribute('aria-valuenow')).toBe('40');
    expect(within(panel).getByText('40%')).toBeTruthy();

    const entry = { id: 'f1', title: 'handbook.pdf', source: { type: 'file', name: 'handbook.pdf' }, status: 'processing' };
    xhr.respond(202, { entry: restEntry(entry), knowledgeBase: { text: '', textEntries: [restEntry(entry)] } });
    expect(await screen.findByText('File uploaded — processing…')).toBeTruthy();
    expect(screen.queryByRole('progressbar')).toBeNull();
    const item = screen.getByRole('heading', { name: 'handbook.pdf' }).closest('li') as HTMLElement;
    expect(within(item).getByText('Processing')).toBeTruthy();
  });

  it('refuses a file over 20 MB without sending it, and shows the server error of a failed upload', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    openDetail();
    await screen.findByRole('heading', { name: 'Knowledge Base' });
    openSource('File');
    const input = screen.getByRole('tabpanel', { name: 'File' }).querySelector('input[type=file]') as HTMLInputElement;

    const big = new File(['x'], 'big.pdf', { type: 'application/pdf' });
    Object.defineProperty(big, 'size', { value: 20 * 1024 * 1024 + 1 });
    fireEvent.change(input, { target: { files: [big] } });
    expect((await screen.findByRole('alert')).textContent).toBe('File too large');
    expect(FakeXhr.last).toBeNull();

    fireEvent.change(input, { target: { files: [new File(['x'], 'a.exe')] } });
    (FakeXhr.last as unknown as FakeXhr).respond(400, { message: 'Unsupported file type' });
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Unsupported file type'));

    fireEvent.change(input, { target: { files: [new File(['x'], 'b.pdf')] } });
    (FakeXhr.last as unknown as FakeXhr).respond(413, '<html>Request Entity Too Large</html>');
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('File too large'));
  });

  it('adds a website with its crawl options', async () => {
    const page = { id: 'u1', title: 'Help', source: { type: 'url', url: 'https://example.com/help' }, status: 'processing' };
    const { calls } = openDetail(undefined, {
      AddUrlEntry: () => ({ data: { addUrlEntry: entryResult(page, knowledgeBaseOf([page])) } }),
    });
    await screen.findByRole('heading', { name: 'Knowledge Base' });
    openSource('Website');
    const add = screen.getByRole('button', { name: 'Add Website' });
    expect(add.hasAttribute('disabled')).toBe(true);
    fireEvent.change(screen.getByLabelText('Website address'), { target: { value: ' https://example.com/help ' } });
    fireEvent.click(screen.getByLabelText('Include other pages of this site'));
    expect((screen.getByLabelText('Max pages') as HTMLInputElement).value).toBe('20');
    fireEvent.change(screen.getByLabelText('Max pages'), { target: { value: '101' } });
    fireEvent.click(add);
    expect((await screen.findByRole('alert')).textContent).toBe('Max pages must be a whole number from 1 to 100');

    fireEvent.change(screen.getByLabelText('Max pages'), { target: { value: '5' } });
    fireEvent.click(add);
    expect(await screen.findByText('Website added — processing…')).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'AddUrlEntry')?.variables).toEqual({
      chatbotId: 'c1',
      url: 'https://example.com/help',
      crawl: true,
      maxPages: 5,
    });
    expect((screen.getByLabelText('Website address') as HTMLInputElement).value).toBe('');
    const link = screen.getByRole('link', { name: /example\.com\/help/ });
    expect(link.getAttribute('href')).toBe('https://example.com/help');
    expect(within(link.closest('li') as HTMLElement).getByText('Processing')).toBeTruthy();
  });

  it("shows the server's website error", async () => {
    openDetail(undefined, { AddUrlEntry: () => graphqlError('Enter a valid http or https address', 'BAD_USER_INPUT') });
    await screen.findByRole('heading', { name: 'Knowledge Base' });
    openSource('Website');
    fireEvent.change(screen.getByLabelText('Website address'), { target: { value: 'ftp://x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add Website' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Enter a valid http or https address');
  });

  it('adds a Q&A pair and lists its question and answer', async () => {
    const qa = { id: 'q1', title: 'When are you open?', content: 'From 9 to 6.', question: 'When are you open?', source: { type: 'qa' } };
    const { calls } = openDetail(undefined, {
      AddQaEntry: () => ({ data: { addQaEntry: entryResult(qa, knowledgeBaseOf([qa])) } }),
    });
    await screen.findByRole('heading', { name: 'Knowledge Base' });
    openSource('Q&A');
    const add = screen.getByRole('button', { name: 'Add Q&A' });
    fireEvent.change(screen.getByLabelText('Question'), { target: { value: 'When are you open?' } });
    expect(add.hasAttribute('disabled')).toBe(true);
    fireEvent.change(screen.getByLabelText('Answer'), { target: { value: 'From 9 to 6.' } });
    fireEvent.click(add);
    expect(await screen.findByText('Q&A pair added')).toBeTruthy();
    expect(calls.find((c) => c.operationName === 'AddQaEntry')?.variables).toEqual({
      chatbotId: 'c1',
      question: 'When are you open?',
      answer: 'From 9 to 6.',
    });
    const item = screen.getByRole('heading', { name: 'When are you open?' }).closest('li') as HTMLElement;
    expect(within(item).getByText('Q&A')).toBeTruthy();
    expect(within(item).getByText('From 9 to 6.')).toBeTruthy();
    expect(within(item).getByText('Ready')).toBeTruthy();
    expect((screen.getByLabelText('Question') as HTMLInputElement).value).toBe('');
  });

  it('shows source badges, status pills and the failure reason', async () => {
    openDetail(
      knowledgeBaseOf([
        { id: 't1', content: 'Typed fact.' },
        {
          id: 'f1',
          title: 'scan.pdf',
          source: { type: 'file', name: 'scan.pdf' },
          status: 'failed',
          error: 'No text found — is it a scanned image?',
        },
        { id: 'f2', title: 'guide.docx', source: { type: 'file', name: 'guide.docx' }, status: 'processing' },
      ]),
    );
    const typed = (await screen.findByRole('heading', { name: 'Typed fact.' })).closest('li') as HTMLElement;
    expect(within(typed).getByText('Text')).toBeTruthy();
    expect(within(typed).getByText('Ready')).toBeTruthy();
    const failed = screen.getByRole('heading', { name: 'scan.pdf' }).closest('li') as HTMLElement;
    expect(within(failed).getByText('Failed')).toBeTruthy();
    expect(within(failed).getByText('No text found — is it a scanned image?').className).toContain('text-red');
    const processing = screen.getByRole('heading', { name: 'guide.docx' }).closest('li') as HTMLElement;
    expect(within(processing).getByText('Processing')).toBeTruthy();
  });

  it('polls while an entry is processing and stops once none is', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const file = { id: 'f1', title: 'guide.pdf', source: { type: 'file', name: 'guide.pdf' } };
    let loads = 0;
    const { calls } = openDetail(undefined, {
      Chatbot: () => {
        loads += 1;
        const status = loads < 3 ? 'processing' : 'ready';
        return {
          data: { chatbot: { ...detailChatbot(), knowledgeBase: knowledgeBaseOf([{ ...file, status, content: 'Chapter one.' }]) } },
        };
      },
    });
    const item = (await screen.findByRole('heading', { name: 'guide.pdf' })).closest('li') as HTMLElement;
    expect(within(item).getByText('Processing')).toBeTruthy();

    await act(() => vi.advanceTimersByTimeAsync(KNOWLEDGE_POLL_MS + 100));
    await act(() => vi.advanceTimersByTimeAsync(KNOWLEDGE_POLL_MS + 100));
    await waitFor(() => expect(within(item).getByText('Ready')).toBeTruthy());
    expect(screen.getByText('Chapter one.', { selector: 'div' })).toBeTruthy();
    const chatbotLoads = () => calls.filter((c) => c.operationName === 'Chatbot').length;
    const settled = chatbotLoads();
    expect(settled).toBe(3);

    await act(() => vi.advanceTimersByTimeAsync(KNOWLEDGE_POLL_MS * 4));
    expect(chatbotLoads()).toBe(settled);
  });
});

describe('Website entries', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  const page = {
    id: 'u1',
    title: 'Pricing',
    content: 'Plans from $10.',
    source: { type: 'url', url: 'https://example.com/pricing' },
    lastSyncedAt: new Date(Date.now() - 5 * 60_000).toISOString(),
    lastSyncChanged: false,
  };

  it('shows when the page was last checked, refreshes it and turns auto-sync on', async () => {
    const { calls } = openDetail(knowledgeBaseOf([page]), {
      RefreshTextEntry: () => {
        const refreshing = { ...page, status: 'processing' };
        return { data: { refreshTextEntry: entryResult(refreshing, knowledgeBaseOf([refreshing])) } };
      },
      SetTextEntryAutoSync: ({ variables }) => {
        const changed = { ...page, status: 'processing', autoSync: variables.autoSync as boolean };
        return { data: { setTextEntryAutoSync: entryResult(changed, knowledgeBaseOf([changed])) } };
      },
    });
    const item = (await screen.findByRole('heading', { name: 'Pricing' })).closest('li') as HTMLElement;
    expect(within(item).getByText(/Last checked/).textContent).toBe('Last checked 5 minutes ago — unchanged');
    const autoSync = within(item).getByRole('switch', { name: 'Auto-sync daily' });
    expect(autoSync.getAttribute('aria-checked')).toBe('false');

    fireEvent.click(within(item).getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(within(item).getByText('Processing')).toBeTruthy());
    expect(calls.find((c) => c.operationName === 'RefreshTextEntry')?.variables).toEqual({ chatbotId: 'c1', entryId: 'u1' });
    // Refreshing again waits for the fetch under way.
    expect(within(item).getByRole('button', { name: 'Refresh' }).hasAttribute('disabled')).toBe(true);

    fireEvent.click(autoSync);
    await waitFor(() => expect(within(item).getByRole('switch', { name: 'Auto-sync daily' }).getAttribute('aria-checked')).toBe('true'));
    expect(calls.find((c) => c.operationName === 'SetTextEntryAutoSync')?.variables).toEqual({
      chatbotId: 'c1',
      entryId: 'u1',
      autoSync: true,
    });
  });

  it('shows a refresh refused by the server under the entry', async () => {
    openDetail(knowledgeBaseOf([page]), {
      RefreshTextEntry: () => graphqlError('This entry is still being processed', 'FAILED_PRECONDITION'),
    });
    const item = (await screen.findByRole('heading', { name: 'Pricing' })).closest('li') as HTMLElement;
    fireEvent.click(within(item).getByRole('button', { name: 'Refresh' }));
    expect((await within(item).findByRole('alert')).textContent).toBe('This entry is still being processed');
  });
});
