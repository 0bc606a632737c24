// The gateway's /metrics on a port of its own (METRICS_PORT): its public port faces the internet,
// and what the process counts is for the operators' scrapers only. A plain HTTP server that answers
// GET /metrics and nothing else.
import { createServer, type Server } from 'node:http';
import { closeServer } from './lifecycle.ts';
import { collectProcessMetrics, METRICS_CONTENT_TYPE, metricsText, requestedNames } from './metrics.ts';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function serveMetrics(port: number, host?: string): Promise<MetricsServer> {
  collectProcessMetrics();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://metrics');
    if (url.pathname !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    metricsText(requestedNames({ name: url.searchParams.getAll('name') })).then(
      (text) => res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : port, close: () => closeServer(server) };
}
