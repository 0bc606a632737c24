// The provider's POST the channel worker sends answers with, against a local HTTP server: the answer
// read, one kept-alive connection for calls one after another, and each way it ends without one
// (a redirect, an answer past the cap, no answer in time, nobody listening).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { providerPost, ProviderUnreachable } from '../provider-post.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

async function serve(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handle(req, body, res));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const opts = { timeoutMs: 2000, maxBytes: 1024 };

describe('providerPost', () => {
  it('posts the JSON and reads the answer, the calls one after another over one kept-alive connection', async () => {
    const sockets = new Set<unknown>();
    const url = await serve((req, body, res) => {
      sockets.add(req.socket);
      expect(req.headers['content-type']).toBe('application/json');
      if (req.url === '/limited') return void res.writeHead(429).end('{"ok":false}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, echo: JSON.parse(body) }));
    });
    const post = providerPost();
    for (let i = 0; i < 3; i++) {
      const answer = await post(`${url}/bot1/sendMessage`, JSON.stringify({ n: i }), opts);
      expect([answer.status, JSON.parse(answer.text)]).toEqual([200, { ok: true, echo: { n: i } }]);
    }
    expect(await post(`${url}/limited`, '{}', opts)).toEqual({ status: 429, text: '{"ok":false}' });
    expect(sockets.size).toBe(1);
  });

  it('reads a redirect as out of reach, and an answer past the cap as no text', async () => {
    const url = await serve((req, _body, res) => {
      if (req.url === '/moved') res.writeHead(302, { location: 'http://example.com/' }).end();
      else res.writeHead(200).end('x'.repeat(10_000));
    });
    const post = providerPost();
    await expect(post(`${url}/moved`, '{}', opts)).rejects.toMatchObject({ name: 'RedirectError' });
    expect(await post(`${url}/big`, '{}', opts)).toEqual({ status: 200, text: '' });
  });

  it('gives up at the deadline when no answer comes', async () => {
    const url = await serve(() => {
      // never answers
    });
    const late = providerPost()(`${url}/slow`, '{}', { timeoutMs: 200, maxBytes: 1024 });
    await expect(late).rejects.toBeInstanceOf(ProviderUnreachable);
    await expect(late).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('reads nobody listening as out of reach', async () => {
    const url = await serve(() => {});
    await new Promise((r) => server!.close(r));
    server = undefined;
    await expect(providerPost()(`${url}/`, '{}', opts)).rejects.toBeInstanceOf(ProviderUnreachable);
  });
});
