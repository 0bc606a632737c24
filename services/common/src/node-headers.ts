import type { IncomingHttpHeaders } from 'node:http';

/** Node's parsed headers as a Fetch API Headers object (what Connect's types use). */
export function headersFromNode(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (value !== undefined) headers.set(key, value);
  }
  return headers;
}
