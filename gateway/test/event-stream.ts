// Reading a server-sent event stream in a test, and waiting for what it delivers.

export interface StreamEvent {
  /** The `event:` line; "message" when the block has none. */
  event: string;
  /** The `data:` line parsed as JSON, or the literal "[DONE]". */
  data: any;
}

/** Reads `res`'s body in the background: the events and the comment lines (": connected", ": ping") so far. */
export function readEvents(res: Response) {
  const events: StreamEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  const reading = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) comments.push(block);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data) events.push({ event, data: data === '[DONE]' ? data : JSON.parse(data) });
        }
      }
    } catch {
      // aborted
    }
    ended = true;
  })();
  return { events, comments, ended: () => ended, reading };
}

/** Resolves once `check` holds; fails naming `what` after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what = 'the condition', timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
