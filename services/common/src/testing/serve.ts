import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Express } from 'express';
import { closeServer, listen } from '../lifecycle.ts';

/** Starts an app on a random local port for a test. */
export async function serveApp(app: Express): Promise<{ url: string; close: () => Promise<void> }> {
  const server = await listen(app, 0, '127.0.0.1');
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { url: `http://127.0.0.1:${address.port}`, close: () => closeServer(server) };
}

/**
 * Serves a local fake of a provider's HTTP API (OpenAI, Anthropic, Gemini, Stripe) on host:port (0:
 * any free one). A handler that throws answers `onFailure` (the provider's own error body, status
 * 500) before its headers went out, else drops the connection, as a provider's crash would. `close`
 * ends open connections too, so a test's teardown never waits on a stream.
 */
export async function serveFake(
  name: string,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  onFailure: (res: ServerResponse, message: string) => void,
  host: string,
  port: number,
): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) onFailure(res, err.message);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error(`fake ${name}: no address`);
  return {
    origin: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
