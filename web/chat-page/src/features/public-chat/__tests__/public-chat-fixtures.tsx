// The public chat page's test doubles: the REST API answered in-process, and the visitor's hands.
import { act, fireEvent, render, screen } from '@testing-library/react';
import { vi } from 'vitest';
import { PublicChatPage } from '../components/public-chat-page';

export interface Call {
  url: string;
  init: RequestInit;
}

/** A `text/event-stream` response whose events the test pushes one by one. */
export function eventStream() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    response: new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    async emit(event: string, data: unknown) {
      await act(async () => {
        controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
        await new Promise((resolve) => setTimeout(resolve, 0));
      });
    },
    async close() {
      await act(async () => {
        // The page stops reading after "done", which cancels the stream: closing it then is a no-op.
        try {
          controller.close();
        } catch {
          // already cancelled
        }
        await new Promise((resolve) => setTimeout(resolve, 0));
      });
    },
  };
}

export function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export const chatbot = { name: 'acme support', profilePicture: null };

/** Answers the chatbot load with `load` and each POST (chat or feedback) with the next of `replies`. */
export function mockApi(
  replies: Array<Response | (() => Response | Promise<Response>) | Error>,
  load: (() => Response) | Error = () => json(chatbot),
) {
  const calls: Call[] = [];
  const fetchMock = vi.fn(async (url: string, init: RequestInit = {}) => {
    calls.push({ url, init });
    if (!init.method || init.method === 'GET') {
      if (load instanceof Error) throw load;
      return load();
    }
    const reply = replies.shift();
    if (!reply) throw new Error(`unexpected ${url}`);
    if (reply instanceof Error) throw reply;
    return typeof reply === 'function' ? reply() : reply;
  });
  vi.stubGlobal('fetch', fetchMock);
  const posts = () => calls.filter((c) => c.init.method === 'POST');
  return { calls, posts };
}

export function field() {
  return screen.getByPlaceholderText('Type your message...') as HTMLTextAreaElement;
}

// Typing fires `input` events, which is what the page's onChange listens to on preact/compat (React's
// onChange hears them too); a bare `change` event is what a browser sends only on leaving the field.
export function type(text: string) {
  fireEvent.input(field(), { target: { value: text } });
}

export function pressEnter() {
  fireEvent.keyDown(field(), { key: 'Enter' });
}

export async function openChat(uniqueId = 'acme', reload = vi.fn()) {
  const view = render(<PublicChatPage uniqueId={uniqueId} reload={reload} />);
  await screen.findByRole('heading', { level: 1 });
  return { ...view, reload };
}

export function bodyOf(call: Call) {
  return JSON.parse(call.init.body as string) as Record<string, unknown>;
}
