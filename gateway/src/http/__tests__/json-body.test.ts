// json-body.ts against express.json itself: for each request, the body read (or left unread) and the
// refusal's status and body-parser error type, through the one reader and through the other.
import { request, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBodyReader, limitInBytes, readJsonBody } from '../json-body.ts';

const LIMIT = '1kb';
let server: Server;
let port: number;

beforeAll(async () => {
  const reader = jsonBodyReader(LIMIT);
  const generic = express.json({ limit: LIMIT });
  const app = express();
  const answer = (res: express.Response, body: unknown, err: unknown) => {
    const e = err as { status?: number; type?: string } | undefined;
    res.json(e ? { status: e.status ?? 500, type: e.type ?? null } : { status: 200, body: body === undefined ? '(unread)' : body });
  };
  app.post('/fast', (req, res) => {
    readJsonBody(reader, req, res).then(
      () => answer(res, req.body, undefined),
      (err: unknown) => answer(res, undefined, err),
    );
  });
  app.post('/generic', (req, res) => generic(req, res, (err?: unknown) => answer(res, req.body, err)));
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function post(path: string, headers: Record<string, string>, body: Buffer | string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = (body: string | Buffer, type = 'application/json', extra: Record<string, string> = {}) => ({
  headers: { 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...extra },
  body,
});

const cases: Record<string, { headers: Record<string, string>; body: Buffer | string }> = {
  object: json('{"message":"hello","visitor":{"id":"v"}}'),
  array: json('[1,2]'),
  'leading whitespace': json('  \n{"a":1}'),
  'a BOM': json(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"é"}')])),
  'utf-8 charset': json('{"a":1}', 'application/json; charset=utf-8'),
  'upper-case charset': json('{"a":1}', 'application/json; charset=UTF-8'),
  'latin-1 charset': json('{"a":1}', 'application/json; charset=latin1'),
  empty: json(''),
  'a bare string': json('"text"'),
  'a number': json('12'),
  malformed: json('{"a":'),
  'another type': json('a=1', 'application/x-www-form-urlencoded'),
  'text/plain': json('{"a":1}', 'text/plain'),
  'at the limit': json(JSON.stringify({ a: 'x'.repeat(1024 - 8) })),
  'over the limit': json(JSON.stringify({ a: 'x'.repeat(2000) })),
  'an unknown encoding': json('{"a":1}', 'application/json', { 'content-encoding': 'bogus' }),
  'invalid utf-8': json(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
};

describe('readJsonBody', () => {
  for (const [name, { headers, body }] of Object.entries(cases)) {
    it(`reads ${name} as express.json does`, async () => {
      const [fast, generic] = [await post('/fast', headers, body), await post('/generic', headers, body)];
      expect(fast).toEqual(generic);
    });
  }

  it('reads the limit as body-parser does', () => {
    expect(limitInBytes('100kb')).toBe(102_400);
    expect(limitInBytes('1mb')).toBe(1_048_576);
    expect(limitInBytes('1.5kb')).toBe(1536);
    expect(limitInBytes('512')).toBe(512);
    // Another form: express.json reads it.
    expect(limitInBytes('10b')).toBeUndefined();
  });
});
