// The provider's side of `npm run bench channels`' acknowledgement runs, in a process of its own (as
// Telegram is): posts the bodies it is sent over IPC all at once to the webhook and answers the time
// to each 200, in milliseconds. Started by bench/channels.ts with child_process.fork.
interface Round {
  url: string;
  headers: Record<string, string>;
  bodies: string[];
}

process.on('message', (raw) => {
  const round = raw as Round;
  void Promise.all(
    round.bodies.map(async (body) => {
      const t0 = performance.now();
      const res = await fetch(round.url, { method: 'POST', headers: { 'content-type': 'application/json', ...round.headers }, body });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`webhook answered ${res.status}`);
      return performance.now() - t0;
    }),
  ).then(
    (acks) => process.send!({ acks }),
    (err: Error) => process.send!({ error: err.message }),
  );
});
process.on('disconnect', () => process.exit(0));
