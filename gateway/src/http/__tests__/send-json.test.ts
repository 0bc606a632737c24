// sendJson (operations.ts) against res.json: the same status, headers in the same order, and body.
import { request, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from '../operations.ts';

let server: Server;
let port: number;
const VALUE = { message: 'héllo', sources: [{ entryId: 'e', title: 't' }], n: 1, none: null };

beforeAll(async () => {
  const app = express();
  app.use((_req, res, next) => {
    res.setHeader('X-Request-Id', 'r');
    next();
  });
  for (const method of ['post', 'get', 'delete'] as const) {
    app[method]('/json/:status', (req, res) => void res.status(Number(req.params.status)).json(VALUE));
    app[method]('/bytes/:status', (req, res) => sendJson(req, res, Number(req.params.status), VALUE));
  }
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function call(method: string, path: string): Promise<{ status: number; headers: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.rawHeaders.filter((_, i) => i % 2 === 0 || res.rawHeaders[i - 1].toLowerCase() !== 'date'),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('sendJson', () => {
  for (const method of ['POST', 'GET', 'DELETE'])
    for (const status of [200, 201, 204])
      it(`answers ${method} with ${status} as res.json does`, async () => {
        const [bytes, json] = [await call(method, `/bytes/${status}`), await call(method, `/json/${status}`)];
        expect(bytes).toEqual(json);
        if (status === 200) expect(bytes.headers).toContain('ETag');
      });
});
