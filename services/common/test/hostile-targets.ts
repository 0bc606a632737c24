// The outbound guard's hostile world, shared by its tests (outbound-guard.test.ts, guarded-fetch.test.ts):
// a resolver answering from a table, and two local servers. Loopback stands for the internet:
// 127.0.0.1 (allow-listed by the tests' policy) is a target that redirects, hops, declares or streams
// 10 GB, never ends, drips a slow loris or never answers; 127.0.0.2 stands for an internal service,
// whose hits must stay empty.
import type { LookupAddress } from 'node:dns';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A resolver answering from a table (a queue of answers per name), standing for DNS we do not control. */
export function fakeDns(table: Record<string, string[][]>, calls: string[] = []) {
  return ((hostname: string, _o: unknown, callback: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers?.length) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    const answer = answers.length > 1 ? answers.shift()! : answers[0];
    callback(
      null,
      answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  }) as unknown as typeof import('node:dns').lookup;
}

export interface Listening {
  server: Server;
  port: number;
  /** The paths asked, in order. */
  hits: string[];
}

async function listen(host: string, handler: (path: string, res: ServerResponse) => void): Promise<Listening> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req.url ?? '/', res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

/** The target on 127.0.0.1 and the internal service on 127.0.0.2; close() ends every answer left open. */
export async function startHostileTargets(): Promise<{ target: Listening; internal: Listening; close: () => Promise<void> }> {
  const open = new Set<ServerResponse>();
  const internal = await listen('127.0.0.2', (_p, res) => res.end('internal secrets'));
  const target = await listen('127.0.0.1', (path, res) => {
    const hop = /^\/hop\/(\d+)$/.exec(path);
    if (hop) res.writeHead(302, { location: hop[1] === '0' ? '/done' : `/hop/${Number(hop[1]) - 1}` }).end();
    else if (path === '/done') res.end('{"ok":true}');
    else if (path === '/to-internal') res.writeHead(302, { location: `http://127.0.0.2:${internal.port}/` }).end();
    else if (path === '/to-metadata') res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    else if (path === '/huge-declared') res.writeHead(200, { 'content-length': String(10 * 1024 ** 3) }).write('x');
    else if (path === '/huge-streamed') {
      // 10 GB that would never fit: written as fast as the reader takes it, without a length.
      open.add(res);
      const chunk = Buffer.alloc(16 * 1024, 120);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    } else if (path === '/never-ends') {
      open.add(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":');
    } else if (path === '/slow-loris') {
      open.add(res);
      res.writeHead(200);
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 20);
    } else if (path === '/no-answer') open.add(res);
    else res.writeHead(404).end();
  });
  return {
    target,
    internal,
    close: async () => {
      for (const res of open) res.destroy();
      target.server.closeAllConnections();
      internal.server.closeAllConnections();
      await new Promise((r) => target.server.close(r));
      await new Promise((r) => internal.server.close(r));
    },
  };
}
