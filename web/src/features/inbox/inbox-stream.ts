// The workspace's live inbox, read from GET /api/inbox/events (docs/product.md, Inbox) with fetch
// and a stream reader: EventSource cannot send the Authorization and X-Workspace-Id headers every
// dashboard request carries. One connection serves every listener of the page (the header's badge and
// the Inbox page); it opens with the first and closes after the last. A stream that ends or fails is
// opened again after a growing pause (1 s, 2 s, 4 s … at most 30 s); each (re)connection tells the
// listeners, who fetch what they show again, since changes made while it was down are not replayed.
// A refusal (signed out, no permission, a free workspace) stops it: trying again would change nothing.
// Access taken away while the stream is open (removed, a role without conversations, signed out) ends
// it with an `error` event saying so ("You no longer have access to this workspace."): the listeners
// are told, to stop showing what they showed.
import type { InboxItemFieldsFragment } from '../../gql/graphql';
import { readToken } from '../../lib/token-storage';
import { workspaceHeaders } from '../../lib/workspace/workspace-storage';
import { readEventStream } from '../../../chat-page/src/lib/read-event-stream';

export const INBOX_EVENTS_PATH = '/api/inbox/events';

export interface InboxListener {
  /** A conversation as it now stands (event `conversation`). */
  onItem?: (item: InboxItemFieldsFragment) => void;
  /** The stream is (again) connected: what was missed while it was not must be fetched. */
  onConnected?: () => void;
  /** The server ended the stream for good, in these words (access taken away, or refused). */
  onEnded?: (message: string) => void;
}

/** The pause before the n-th attempt to connect again (n from 1): 1 s, 2 s, 4 s … 30 s at most. */
export function reconnectDelay(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

const listeners = new Set<InboxListener>();
let stop: (() => void) | null = null;

/** Listens to the live inbox; the returned function stops listening. */
export function subscribeInbox(listener: InboxListener): () => void {
  listeners.add(listener);
  stop ??= connect();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && stop) {
      stop();
      stop = null;
    }
  };
}

/** Whether a stream is open or being reopened now (for tests). */
export const inboxStreamRunning = () => stop !== null;

function connect(): () => void {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;

  const run = async () => {
    while (!abort.signal.aborted) {
      let refused = false;
      try {
        refused = await readOnce(abort.signal, () => {
          attempt = 0;
          for (const l of [...listeners]) l.onConnected?.();
        });
      } catch {
        // A network failure or a cut stream: try again below.
      }
      if (refused || abort.signal.aborted) return;
      attempt += 1;
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, reconnectDelay(attempt));
        abort.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  };
  void run();
  return () => {
    clearTimeout(timer);
    abort.abort();
  };
}

/** One connection, read to its end. Resolves to true when the server refused it for good (a 4xx). */
async function readOnce(signal: AbortSignal, connected: () => void): Promise<boolean> {
  const token = readToken();
  if (!token) return true;
  const res = await fetch(INBOX_EVENTS_PATH, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, ...workspaceHeaders() },
    signal,
  });
  if (!res.ok || !res.body) return res.status >= 400 && res.status < 500;
  connected();
  // The public chat page's reader: one way of reading server-sent events in the web.
  for await (const { event, data } of readEventStream(res.body)) {
    if (event === 'error') {
      const { status = 500, message } = JSON.parse(data) as { status?: number; message?: string };
      if (status >= 400 && status < 500) {
        for (const l of [...listeners]) l.onEnded?.(message ?? '');
        return true;
      }
      continue;
    }
    if (event !== 'conversation') continue;
    const item = JSON.parse(data) as InboxItemFieldsFragment;
    for (const l of [...listeners]) l.onItem?.(item);
  }
  return false;
}
