import { describe, expect, it } from 'vitest';
import { readEventStream, type ServerSentEvent } from '../read-event-stream';

function streamOf(chunks: string[]) {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]) {
  const events: ServerSentEvent[] = [];
  for await (const event of readEventStream(streamOf(chunks))) events.push(event);
  return events;
}

describe('readEventStream', () => {
  it('reads events split anywhere across chunks, with any line ending', async () => {
    expect(await collect(['event: del', 'ta\r\ndata: {"delta":"a"}\r', '\n\r\n: keep-alive\n\nevent: done\rdata: {"x":1}\r\r'])).toEqual([
      { event: 'delta', data: '{"delta":"a"}' },
      { event: 'done', data: '{"x":1}' },
    ]);
  });

  it('joins multi-line data, names unnamed events "message" and keeps a last event without its blank line', async () => {
    expect(await collect(['data: one\ndata:two\n\n', 'event: done\ndata: end'])).toEqual([
      { event: 'message', data: 'one\ntwo' },
      { event: 'done', data: 'end' },
    ]);
  });

  it('decodes multi-byte characters split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 8));
        controller.enqueue(bytes.slice(8));
        controller.close();
      },
    });
    const events: ServerSentEvent[] = [];
    for await (const event of readEventStream(stream)) events.push(event);
    expect(events).toEqual([{ event: 'message', data: 'héllo ✓' }]);
  });

  it("gives each event its own id (the conversation stream's message ids), and none to an event without one", async () => {
    expect(await collect(['id: 41\nevent: message\ndata: {"a":1}\n\n: ping\n\nevent: state\ndata: {}\n\n'])).toEqual([
      { event: 'message', data: '{"a":1}', id: '41' },
      { event: 'state', data: '{}' },
    ]);
  });
});
