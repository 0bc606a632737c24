// The provider's side of `npm run bench channels`' acknowledgement runs, in a process of its own (as
// Telegram is): posts the bodies it is sent over IPC all at once to the webhook and answers the time
// to each 200, in milliseconds. Started by bench/channels.ts with child_process.fork.
//
// Two clients: `node:http` over a kept-alive agent (the headline: on a bare node:http server answering
// 200 it measures p99 13–16 ms for 100 posts at once on 2 cores), and `fetch` (undici), as the first
// versions of this benchmark posted: its own work before each request is written, about 25 ms for
// the hundredth of 100 posted at once here, is counted in every figure it gives.
import http from 'node:http';

interface Round {
  url: string;
  headers: Record<string, string>;
  bodies: string[];
  client: 'http' | 'fetch';
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const viaHttp = (url: URL, headers: Record<string, string>, body: string) =>
  new Promise<number>((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
const viaFetch = async (url: URL, headers: Record<string, string>, body: string) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  await res.arrayBuffer();
  return res.status;
};

let retried = 0;
let refusedPosts = 0;
process.on('message', (raw) => {
  const round = raw as Round;
  const url = new URL(round.url);
  const send = round.client === 'fetch' ? viaFetch : viaHttp;
  void Promise.all(
    round.bodies.map(async (body) => {
      const t0 = performance.now();
      const post = () => send(url, round.headers, body);
      // A kept-alive connection the server closed as it was reused fails at once: posted again (as
      // Telegram would retry), the time counted from the first try.
      const status = await post().catch(() => {
        retried++;
        return post();
      });
      // A refusal (a 503 when the gateway's call to chat timed out) is counted, and Telegram would post it again.
      if (status !== 200) refusedPosts++;
      return performance.now() - t0;
    }),
  ).then(
    (acks) => process.send!({ acks, retried, refused: refusedPosts }),
    (err: Error) => process.send!({ error: err.message }),
  );
});
process.on('disconnect', () => process.exit(0));
