// The balanced client (transport/balanced.ts): calls spread over a service's replicas, per request;
// an endpoint that refuses connections sits out; a call that never reached a replica is sent once
// more, and no other. Real servers on loopback addresses; the clock and the name lookups are the
// test's own.
import { type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { Code, ConnectError } from '@connectrpc/connect';
import { AuthService } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConfigError, readConfig, serviceUrl } from '../src/config.ts';
import { createServiceApp } from '../src/http.ts';
import { listen } from '../src/lifecycle.ts';
import { createLogger } from '../src/logger.ts';
import { createServiceClient } from '../src/rpc-client.ts';
import { DEVELOPMENT_SERVICE_SECRET } from '../src/service-auth.ts';
import {
  balance,
  DRAINING_OUT_MS,
  endpointDraining,
  EndpointPool,
  parseServiceTargets,
  UNARY_SOCKETS_PER_ENDPOINT,
  type Endpoint,
} from '../src/transport/balanced.ts';
import type { UnaryTransportChoice } from '../src/transport/lean-unary.ts';

/** One replica of a small service: it answers with its name and counts what reached it. */
interface Replica {
  name: string;
  url: string;
  port: number;
  /** Calls that reached the service, by token. */
  calls: string[];
  connections: number;
  /** Holds the `hold` calls until released. */
  release(): void;
  /** Stops as a killed process would: the listener and every connection gone at once. */
  kill(): Promise<void>;
}

const started: Replica[] = [];
afterEach(async () => {
  for (const r of started.splice(0)) await r.kill();
});

async function startReplica(name: string, host = '127.0.0.1', port = 0): Promise<Replica> {
  const calls: string[] = [];
  let waiting: (() => void)[] = [];
  const app = createServiceApp({
    logger: createLogger('test', 'silent'),
    trust: { secret: DEVELOPMENT_SERVICE_SECRET, callers: ['gateway'] },
    readiness: [],
    // The connection dropped once the whole request has arrived, before any answer.
    extend: (app) =>
      app.use((req, _res, next) => {
        if (req.headers['x-drop']) {
          calls.push('dropped');
          req.socket.destroy();
        } else next();
      }),
    routes: (router) => {
      router.service(AuthService, {
        async authenticate(req) {
          calls.push(req.token);
          if (req.token === 'hold') await new Promise<void>((resolve) => waiting.push(resolve));
          return { user: { id: name, name } };
        },
      });
      router.service(ChatService, {
        async *streamMessage(req) {
          calls.push(`stream:${req.uniqueId}`);
          yield { event: { case: 'delta', value: name } };
          if (req.message === 'hold') await new Promise<void>((resolve) => waiting.push(resolve));
          yield { event: { case: 'delta', value: 'end' } };
        },
      });
    },
  });
  const server: Server = await listen(app, port, host);
  const replica: Replica = {
    name,
    port: (server.address() as AddressInfo).port,
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    calls,
    connections: 0,
    release() {
      const all = waiting;
      waiting = [];
      for (const resolve of all) resolve();
    },
    kill: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }),
  };
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    replica.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  started.push(replica);
  return replica;
}

/** A loopback port nothing listens on: connections to it are refused. */
async function refusedUrl(): Promise<string> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function failure(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectError);
    return err as ConnectError;
  }
  throw new Error('expected the call to fail');
}

const counts = (names: string[]) => names.reduce<Record<string, number>>((acc, n) => ((acc[n] = (acc[n] ?? 0) + 1), acc), {});

describe('a service URL setting', () => {
  it('takes one URL or a comma-separated list, and refuses a bad one with a message naming the variable', () => {
    expect(parseServiceTargets('http://10.0.0.5:4003, http://10.0.0.6:4003/')).toEqual(['http://10.0.0.5:4003', 'http://10.0.0.6:4003']);
    expect(readConfig({ CHAT_URL: serviceUrl('CHAT_URL') }, { CHAT_URL: 'http://a:1,https://b:2' }).CHAT_URL).toBe(
      'http://a:1,https://b:2',
    );
    for (const bad of [
      'http://a:1,,http://b:2',
      'http://a:1,b:2',
      'ftp://a:1',
      'http://a:1/path',
      'http://u:p@a:1',
      'http://a:1,http://a:1',
      ',',
    ]) {
      expect(() => readConfig({ CHAT_URL: serviceUrl('CHAT_URL') }, { CHAT_URL: bad })).toThrow(ConfigError);
      expect(() => readConfig({ CHAT_URL: serviceUrl('CHAT_URL') }, { CHAT_URL: bad })).toThrow(/^CHAT_URL /);
    }
  });
});

describe('the endpoint choice', () => {
  it('takes the endpoint with the fewest calls in flight, and turns among equals', () => {
    const pool = new EndpointPool('http://127.0.0.1:1,http://127.0.0.1:2,http://127.0.0.1:3');
    const [a, b, c] = pool.list();
    a.inFlight = 2;
    b.inFlight = 1;
    c.inFlight = 3;
    for (let i = 0; i < 5; i++) expect(pool.pick()).toBe(b);
    a.inFlight = b.inFlight = c.inFlight = 0;
    const picks = Array.from({ length: 6 }, () => pool.pick());
    expect(new Set(picks.slice(0, 3))).toEqual(new Set([a, b, c]));
    expect(picks.slice(3)).toEqual(picks.slice(0, 3));
    pool.close();
  });

  it('turns evenly among the others while one is out', () => {
    const now = 0;
    const pool = new EndpointPool('http://127.0.0.1:1,http://127.0.0.1:2,http://127.0.0.1:3,http://127.0.0.1:4', { now: () => now });
    const [a, b, c, d] = pool.list();
    d.inFlight++;
    pool.release(d, true);
    const chosen = new Map<Endpoint, number>();
    for (let i = 0; i < 300; i++) {
      const ep = pool.pick()!;
      chosen.set(ep, (chosen.get(ep) ?? 0) + 1);
    }
    expect([chosen.get(a), chosen.get(b), chosen.get(c), chosen.get(d)]).toEqual([100, 100, 100, undefined]);
    pool.close();
  });

  it('leaves out an endpoint in its backoff, and with every one out tries the one that failed longest ago', () => {
    let now = 1_000_000;
    const pool = new EndpointPool('http://127.0.0.1:1,http://127.0.0.1:2', { now: () => now });
    const [a, b] = pool.list();
    a.inFlight++;
    pool.release(a, true);
    for (let i = 0; i < 4; i++) expect(pool.pick()).toBe(b);
    now += 10;
    b.inFlight++;
    pool.release(b, true);
    now += 5;
    expect(pool.pick()).toBe(a);
    // a was just tried, so b (failed before that) is next.
    expect(pool.pick()).toBe(b);
    // a answered: it is back.
    a.inFlight++;
    pool.release(a, false);
    expect(a.failures).toBe(0);
    expect(pool.pick()).toBe(a);
    pool.close();
  });

  it('leaves out an endpoint that answered Connection: close (a replica draining) for a while, and closes its idle connections itself', () => {
    let now = 1_000_000;
    const pool = new EndpointPool('http://127.0.0.1:1,http://127.0.0.1:2', { now: () => now });
    const [a, b] = pool.list();
    const idle = {
      destroyed: false,
      destroy() {
        this.destroyed = true;
      },
    };
    (a.agent.freeSockets as unknown as Record<string, unknown[]>)['127.0.0.1:1:'] = [idle];
    endpointDraining(a, now);
    expect(idle.destroyed).toBe(true);
    for (let i = 0; i < 4; i++) {
      const ep = pool.pick();
      expect(ep).toBe(b);
      pool.release(ep!, false);
    }
    now += DRAINING_OUT_MS;
    b.inFlight = 1;
    expect(pool.pick()).toBe(a);
    delete (a.agent.freeSockets as unknown as Record<string, unknown[]>)['127.0.0.1:1:'];
    pool.close();
  });

  it('backs off longer after each failure in a row, and takes the endpoint back after its backoff', () => {
    let now = 0;
    const pool = new EndpointPool('http://127.0.0.1:1,http://127.0.0.1:2', { now: () => now });
    const [a, b] = pool.list();
    const out: number[] = [];
    for (let i = 0; i < 3; i++) {
      a.inFlight++;
      pool.release(a, true);
      out.push(a.outUntil - now);
    }
    expect(out[1]).toBe(out[0] * 2);
    expect(out[2]).toBe(out[1] * 2);
    now = a.outUntil - 1;
    expect(pool.pick()).toBe(b);
    now = a.outUntil;
    b.inFlight = 1;
    expect(pool.pick()).toBe(a);
    pool.close();
  });
});

describe('a host name looked up again', () => {
  it('gives one endpoint per address, follows addresses added and removed, and looks up once per interval', async () => {
    let now = 0;
    let answer = ['10.0.0.1', '10.0.0.2'];
    const lookups: string[] = [];
    const pool = new EndpointPool('http://chat.replicas:4003', {
      now: () => now,
      resolveIntervalMs: 5000,
      resolve: async (host) => {
        lookups.push(host);
        return answer;
      },
    });
    expect(pool.pick()).toBeUndefined();
    await pool.pickResolved();
    expect(pool.list().map((ep) => ep.address)).toEqual(['10.0.0.1', '10.0.0.2']);
    const first = pool.list()[1];
    first.inFlight = 1;

    answer = ['10.0.0.2', '10.0.0.3', '10.0.0.4'];
    now += 4999;
    pool.pick();
    expect(lookups).toHaveLength(1);
    now += 1;
    pool.pick();
    await pool.refresh();
    expect(lookups).toEqual(['chat.replicas', 'chat.replicas']);
    expect(pool.list().map((ep) => ep.address)).toEqual(['10.0.0.2', '10.0.0.3', '10.0.0.4']);
    // A kept address keeps its endpoint, its pool and what is in flight on it.
    expect(pool.list()[0]).toBe(first);
    expect(pool.list().every((ep) => ep.baseUrl === 'http://chat.replicas:4003')).toBe(true);

    // A failed or empty lookup keeps the endpoints known.
    answer = [];
    now += 5000;
    await pool.refresh();
    expect(pool.list()).toHaveLength(3);
    pool.close();
  });

  it('keeps an IP address or localhost as one endpoint, connected to as before', () => {
    for (const url of ['http://127.0.0.1:4003', 'http://localhost:4003', 'http://[::1]:4003']) {
      const pool = new EndpointPool(url, { resolve: () => Promise.reject(new Error('no lookup expected')) });
      expect(pool.list()).toHaveLength(1);
      expect(pool.pick()?.baseUrl).toBe(url);
      pool.close();
    }
  });

  it('sends calls to the addresses the name has now', async () => {
    // Two replicas on the same port of two loopback addresses, as a headless Service gives them.
    const one = await startReplica('one', '127.0.0.2');
    const two = await startReplica('two', '127.0.0.3', one.port);
    let now = 0;
    let answer = ['127.0.0.2', '127.0.0.3'];
    const pool = new EndpointPool(`http://chat.replicas:${one.port}`, {
      now: () => now,
      resolveIntervalMs: 1000,
      resolve: async () => answer,
    });
    const auth = createServiceClient(AuthService, pool.displayBase, { pool });
    const names = async (n: number) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) out.push((await auth.authenticate({ token: 't' })).user!.name);
      return counts(out);
    };
    expect(await names(10)).toEqual({ one: 5, two: 5 });
    answer = ['127.0.0.3'];
    now += 1000;
    pool.pick();
    await pool.refresh();
    expect(await names(6)).toEqual({ two: 6 });
    answer = [];
    expect(one.calls).toHaveLength(5);
    expect(two.calls).toHaveLength(11);
    pool.close();
  });

  it('fails a call with Unavailable when the name has no address', async () => {
    const pool = new EndpointPool('http://nowhere.invalid:4003', { resolve: () => Promise.reject(new Error('not found')) });
    const err = await failure(createServiceClient(AuthService, pool.displayBase, { pool }).authenticate({ token: 't' }));
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toMatch(/no address found for nowhere\.invalid/);
  });
});

describe.each<UnaryTransportChoice>(['lean', 'library'])('calls over the %s unary transport', (unaryTransport) => {
  it('spread evenly over a list of replicas, unary and streaming', async () => {
    const replicas = await Promise.all(['a', 'b', 'c'].map((name) => startReplica(name)));
    const pool = new EndpointPool(replicas.map((r) => r.url).join(','));
    const auth = createServiceClient(AuthService, pool.displayBase, { pool, unaryTransport });
    const chat = createServiceClient(ChatService, pool.displayBase, { pool, unaryTransport });
    // 300 calls, 10 at a time.
    const answered: string[] = [];
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let i = 0; i < 30; i++) answered.push((await auth.authenticate({ token: 't' })).user!.name);
      }),
    );
    const share = counts(answered);
    for (const r of replicas) expect(Math.abs(share[r.name] - 100)).toBeLessThanOrEqual(15);
    for (const r of replicas) expect(r.calls).toHaveLength(share[r.name]);

    const streamed: string[] = [];
    for (let i = 0; i < 30; i++) {
      for await (const res of chat.streamMessage({ uniqueId: `s${i}`, message: 'hi' })) {
        if (res.event.case === 'delta' && res.event.value !== 'end') streamed.push(res.event.value);
      }
    }
    expect(counts(streamed)).toEqual({ a: 10, b: 10, c: 10 });
    expect(pool.list().every((ep) => ep.inFlight === 0)).toBe(true);
    pool.close();
  });

  it('sends a new call to the least busy replica', async () => {
    const [a, b] = await Promise.all([startReplica('a'), startReplica('b')]);
    const pool = new EndpointPool(`${a.url},${b.url}`);
    const auth = createServiceClient(AuthService, pool.displayBase, { pool, unaryTransport });
    const held = [auth.authenticate({ token: 'hold' }), auth.authenticate({ token: 'hold' }), auth.authenticate({ token: 'hold' })];
    await expect.poll(() => a.calls.length + b.calls.length).toBe(3);
    // a holds two of the three; the next calls go to b while it holds fewer.
    const busier = a.calls.length === 2 ? a : b;
    const idler = busier === a ? b : a;
    expect((await auth.authenticate({ token: 'now' })).user!.name).toBe(idler.name);
    a.release();
    b.release();
    await Promise.all(held);
    pool.close();
  });

  it('sends a call refused by one replica to another, and leaves the refusing one out during its backoff', async () => {
    const live = await startReplica('live');
    let now = 0;
    const pool = new EndpointPool(`${await refusedUrl()},${live.url}`, { now: () => now });
    const [dead] = pool.list();
    const auth = createServiceClient(AuthService, pool.displayBase, { pool, unaryTransport });
    const chat = createServiceClient(ChatService, pool.displayBase, { pool, unaryTransport });
    for (let i = 0; i < 6; i++) expect((await auth.authenticate({ token: `t${i}` })).user!.name).toBe('live');
    expect(live.calls).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
    expect(dead.failures).toBe(1);
    // After its backoff it is tried again (a stream this time), refuses again, and sits out longer.
    now = dead.outUntil;
    for (let i = 0; i < 2 && dead.failures === 1; i++) {
      const deltas: string[] = [];
      for await (const res of chat.streamMessage({ uniqueId: `after-backoff${i}`, message: 'hi' })) deltas.push(String(res.event.value));
      expect(deltas).toEqual(['live', 'end']);
    }
    expect(dead.failures).toBe(2);
    expect(dead.outUntil - now).toBeGreaterThan(500);
    pool.close();
  });

  it('takes an endpoint back once a connection to it is set up, before that call ends', async () => {
    const [a, b] = await Promise.all([startReplica('a'), startReplica('b')]);
    let now = 0;
    const pool = new EndpointPool(`${a.url},${b.url}`, { now: () => now });
    const [epA, epB] = pool.list();
    // a refused connections three times; its backoff is over, and b is busier.
    for (let i = 0; i < 3; i++) {
      epA.inFlight++;
      pool.release(epA, true);
    }
    now = epA.outUntil;
    epB.inFlight = 5;
    const auth = createServiceClient(AuthService, pool.displayBase, { pool, unaryTransport });
    const held = auth.authenticate({ token: 'hold' });
    await expect.poll(() => a.calls.length).toBe(1);
    expect(epA.failures).toBe(0);
    expect(epA.outUntil).toBe(0);
    a.release();
    await held;
    epB.inFlight = 0;
    pool.close();
  });

  it('tries a lone replica that refuses once more, then fails with Unavailable', async () => {
    const pool = new EndpointPool(await refusedUrl());
    const err = await failure(createServiceClient(AuthService, pool.displayBase, { pool, unaryTransport }).authenticate({ token: 't' }));
    expect(err.code).toBe(Code.Unavailable);
    expect(pool.list()[0].failures).toBe(2);
    pool.close();
  });

  it('does not send a call again once its bytes were written', async () => {
    const [a, b] = await Promise.all([startReplica('a'), startReplica('b')]);
    const pool = new EndpointPool(`${a.url},${b.url}`);
    const auth = createServiceClient(AuthService, pool.displayBase, { pool, unaryTransport });
    const err = await failure(auth.authenticate({ token: 't' }, { headers: { 'x-drop': '1' } }));
    expect([Code.Aborted, Code.Unavailable, Code.Internal, Code.Unknown]).toContain(err.code);
    expect([...a.calls, ...b.calls]).toEqual(['dropped']);
    pool.close();
  });
});

describe('a reused connection', () => {
  it('closed before the call was written on it: the call is sent again, on a new connection', async () => {
    const replica = await startReplica('only');
    const pool = new EndpointPool(replica.url);
    const auth = createServiceClient(AuthService, pool.displayBase, { pool });
    await auth.authenticate({ token: 'first' });
    const [ep] = pool.list();
    const idle = Object.values(ep.agent.freeSockets).flat();
    expect(idle).toHaveLength(1);
    // Closed as a server closing an idle connection leaves it: still in the pool, no longer writable.
    idle[0]!.end();
    expect((await auth.authenticate({ token: 'second' })).user!.name).toBe('only');
    expect(replica.calls).toEqual(['first', 'second']);
    expect(replica.connections).toBe(2);
    pool.close();
  });
});

describe('the retry rule', () => {
  const pool = new EndpointPool('http://127.0.0.1:1,http://127.0.0.1:2');
  afterAll(() => pool.close());
  const attempts = async (classify: 'unreachable' | 'closed-before-write' | undefined, mayRetry = true) => {
    const tried: Endpoint[] = [];
    await balance(
      pool,
      async (ep) => {
        tried.push(ep);
        throw new Error('failed');
      },
      () => classify,
      { mayRetry },
    ).catch(() => undefined);
    return tried;
  };

  it('sends a call that never reached a replica once more, to another endpoint', async () => {
    for (const why of ['unreachable', 'closed-before-write'] as const) {
      const tried = await attempts(why);
      expect(tried).toHaveLength(2);
      expect(tried[0]).not.toBe(tried[1]);
    }
  });

  it('never sends again a call that may have reached a replica, or one that may not be repeated', async () => {
    expect(await attempts(undefined)).toHaveLength(1);
    expect(await attempts('unreachable', false)).toHaveLength(1);
    expect(pool.list().every((ep) => ep.inFlight === 0)).toBe(true);
  });
});

describe('a replica killed mid-call', () => {
  it('a unary call not yet sent goes to another replica; a stream already started ends with an error', async () => {
    const replicas = await Promise.all(['a', 'b', 'c'].map((name) => startReplica(name)));
    const pool = new EndpointPool(replicas.map((r) => r.url).join(','));
    const auth = createServiceClient(AuthService, pool.displayBase, { pool });
    const chat = createServiceClient(ChatService, pool.displayBase, { pool });
    // Warm connections to every replica, then a stream held open on each.
    for (let i = 0; i < 3; i++) await auth.authenticate({ token: 'warm' });
    const streams = replicas.map(async (_, i) => {
      const seen: string[] = [];
      try {
        for await (const res of chat.streamMessage({ uniqueId: `held${i}`, message: 'hold' })) seen.push(String(res.event.value));
        return { seen };
      } catch (err) {
        return { seen, err: err as ConnectError };
      }
    });
    await expect.poll(() => replicas.filter((r) => r.calls.some((c) => c.startsWith('stream:'))).length).toBe(3);
    const [victim, ...rest] = replicas;
    await victim.kill();
    for (const r of rest) r.release();
    const outcomes = await Promise.all(streams);
    const broken = outcomes.filter((o) => o.err);
    expect(broken).toHaveLength(1);
    expect(broken[0].seen).toEqual([victim.name]);
    expect([Code.Aborted, Code.Unavailable, Code.Internal, Code.Unknown]).toContain(broken[0].err!.code);
    expect(outcomes.filter((o) => !o.err).map((o) => o.seen.at(-1))).toEqual(['end', 'end']);

    // Every unary call now succeeds: those sent to the dead replica are refused and sent elsewhere.
    const names: string[] = [];
    for (let i = 0; i < 12; i++) names.push((await auth.authenticate({ token: `after${i}` })).user!.name);
    expect(names).not.toContain(victim.name);
    expect(rest.flatMap((r) => r.calls.filter((c) => c.startsWith('after')))).toHaveLength(12);
    pool.close();
  });
});

describe('a burst of calls to one replica', () => {
  it('opens at most UNARY_SOCKETS_PER_ENDPOINT connections for unary calls: the calls past them wait for one, in order, and are all answered', async () => {
    const replica = await startReplica('only');
    const pool = new EndpointPool(replica.url);
    const auth = createServiceClient(AuthService, pool.displayBase, { pool });
    const burst = UNARY_SOCKETS_PER_ENDPOINT + 40;
    let answered = 0;
    const calls = Array.from({ length: burst }, () => auth.authenticate({ token: 'hold' }).then((res) => (answered++, res)));
    // The replica holds every call it was sent: as many as the cap, each on its own connection.
    await expect.poll(() => replica.calls.length, { timeout: 15_000 }).toBe(UNARY_SOCKETS_PER_ENDPOINT);
    // Given time to send more, the client sends none: the others wait for a connection of the pool.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(replica.calls).toHaveLength(UNARY_SOCKETS_PER_ENDPOINT);
    expect(replica.connections).toBe(UNARY_SOCKETS_PER_ENDPOINT);
    while (answered < burst) {
      replica.release();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect((await Promise.all(calls)).map((res) => res.user!.name)).toEqual(Array(burst).fill('only'));
    expect(replica.calls).toHaveLength(burst);
    expect(replica.connections).toBe(UNARY_SOCKETS_PER_ENDPOINT);
    pool.close();
  });

  it('holds more streams open at once than the unary cap: a stream has a connection of its own', async () => {
    const replica = await startReplica('only');
    const pool = new EndpointPool(replica.url);
    const chat = createServiceClient(ChatService, pool.displayBase, { pool });
    const held = UNARY_SOCKETS_PER_ENDPOINT + 10;
    const streams = Array.from({ length: held }, async (_, i) => {
      const seen: string[] = [];
      for await (const res of chat.streamMessage({ uniqueId: `held${i}`, message: 'hold' })) seen.push(String(res.event.value));
      return seen;
    });
    await expect.poll(() => replica.calls.filter((c) => c.startsWith('stream:')).length, { timeout: 15_000 }).toBe(held);
    replica.release();
    expect(await Promise.all(streams)).toEqual(Array(held).fill(['only', 'end']));
    pool.close();
  });
});
