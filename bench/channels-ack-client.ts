// The provider's side of `npm run bench channels`' acknowledgement runs, in a process of its own (as
// Telegram is): posts the bodies it is sent over IPC all at once to the webhook and answers the time
// to each 200, in milliseconds. Started by bench/channels.ts with child_process.fork.
interface Round {
  url: string;
  headers: Record<string, string>;
  bodies: string[];
}

let retried = 0;
let refusedPosts = 0;
process.on('message', (raw) => {
  const round = raw as Round;
  void Promise.all(
    round.bodies.map(async (body) => {
      const t0 = performance.now();
      const post = () => fetch(round.url, { method: 'POST', headers: { 'content-type': 'application/json', ...round.headers }, body });
      // A kept-alive connection the server closed as it was reused fails at once: posted again (as
      // Telegram would retry), the time counted from the first try.
      const res = await post().catch(() => {
        retried++;
        return post();
      });
      await res.arrayBuffer();
      // A refusal (a 503 when the gateway's call to chat timed out) is counted, and Telegram would post it again.
      if (!res.ok) refusedPosts++;
      return performance.now() - t0;
    }),
  ).then(
    (acks) => process.send!({ acks, retried, refused: refusedPosts }),
    (err: Error) => process.send!({ error: err.message }),
  );
});
process.on('disconnect', () => process.exit(0));
