import type { Express } from 'express';
import { closeServer, listen } from '../lifecycle.ts';

/** Starts an app on a random local port for a test. */
export async function serveApp(app: Express): Promise<{ url: string; close: () => Promise<void> }> {
  const server = await listen(app, 0, '127.0.0.1');
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { url: `http://127.0.0.1:${address.port}`, close: () => closeServer(server) };
}
