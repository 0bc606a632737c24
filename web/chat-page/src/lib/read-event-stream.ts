/** One server-sent event: its name ("message" when the server gave none), its data lines joined, and its id when it has one. */
export interface ServerSentEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * Reads a `text/event-stream` body event by event, as the bytes arrive. Lines may end in \n, \r\n
 * or \r; comment lines (":" keep-alives) are skipped. An event's id (the conversation stream's
 * message ids) comes with it; the answer stream sends none.
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let id: string | undefined;
  let data: string[] = [];

  function* takeLines(final: boolean): Generator<ServerSentEvent> {
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      // A lone \r at the end of the buffer may be the first half of \r\n: wait for more bytes.
      if (end === -1 || (!final && end === buffer.length - 1 && buffer[end] === '\r')) return;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) };
        event = '';
        id = undefined;
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
  }

  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      yield* takeLines(false);
    }
    // A last event without its closing blank line still counts.
    buffer += decoder.decode() + '\n\n';
    yield* takeLines(true);
  } finally {
    // Also reached when the reader stops early (an error event): the rest of the body is not wanted.
    void reader.cancel().catch(() => undefined);
  }
}
