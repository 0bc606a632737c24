import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchConversationExport } from '../api/conversation-export-api';
import { uploadWithProgress } from '../hooks/upload-with-progress';

// The REST calls the chatbot pages make themselves carry the chosen workspace, as GraphQL does.
describe('REST calls of the chatbot pages in a workspace', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('the conversations export sends X-Workspace-Id when a workspace is chosen, and none for the personal one', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => new Response('a,b\r\n', { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    localStorage.setItem('workspace', 'w-team');
    await fetchConversationExport('c1', 'Support Bot', 'csv', 'good');
    localStorage.removeItem('workspace');
    await fetchConversationExport('c1', 'Support Bot', 'csv', 'good');
    const [first, second] = fetchMock.mock.calls.map(([, init]) => new Headers(init?.headers));
    expect(first!.get('x-workspace-id')).toBe('w-team');
    expect(first!.get('authorization')).toBe('Bearer good');
    expect(second!.get('x-workspace-id')).toBeNull();
  });

  it('an upload sends X-Workspace-Id', async () => {
    const headers: Record<string, string> = {};
    class FakeXhr {
      upload = { onprogress: null };
      status = 201;
      responseText = '{}';
      onload: (() => void) | null = null;
      open() {}
      setRequestHeader(name: string, value: string) {
        headers[name] = value;
      }
      send() {
        this.onload?.();
      }
    }
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    localStorage.setItem('workspace', 'w-team');
    const answer = await uploadWithProgress({
      url: '/api/chatbot/c1/knowledge-base/file',
      form: new FormData(),
      token: 'good',
      onProgress: () => undefined,
    });
    expect(answer.status).toBe(201);
    expect(headers).toEqual({ authorization: 'Bearer good', 'x-workspace-id': 'w-team' });
  });
});
