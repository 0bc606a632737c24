import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const kit = new URL('../src/', import.meta.url).pathname;

// A service with one slow route; SIGTERM arrives while a request is in flight.
const script = `
import express from 'express';
import { runService } from '${kit}service.ts';
import { createLogger } from '${kit}logger.ts';
const app = express();
app.get('/slow', async (_req, res) => { await new Promise((r) => setTimeout(r, 800)); res.send('done'); });
await runService({ name: 'demo', logger: createLogger('demo', 'info'), port: 0, build: async () => ({
  app, closers: [async () => console.log(JSON.stringify({ msg: 'pool closed' }))] }) });
`;

describe('graceful shutdown', () => {
  it('finishes in-flight requests, then closes pools, then exits 0', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /"port":(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', () => reject(new Error(out)));
    });
    const inFlight = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(await inFlight).toBe('done');
    expect(code).toBe(0);
    expect(out.indexOf('pool closed')).toBeGreaterThan(out.indexOf('shutting down'));
    await expect(fetch(`http://127.0.0.1:${port}/slow`)).rejects.toThrow();
  });
});
