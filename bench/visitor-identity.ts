// What verifying a visitor costs the chat service's CPU: the userHash check of a message that carries
// one (visitor-identity.ts, hashMatches: one HMAC-SHA256 of the user id and a constant-time compare),
// a matching hash and a forged one, and the shape check every message's userHash field gets
// (parseUserHash). A message without a userHash does neither and reads no secret; one with a hash also
// reads the chatbot's secret (one indexed row, not measured here: see the message budget).
//   node bench/visitor-identity.ts [--calls 200000]
import { parseUserHash } from '../services/chat/src/core/message-input.ts';
import { hashMatches, userHashOf } from '../services/chat/src/public-chat/visitor-identity.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const calls = arg('calls', 200_000);
const secret = 'ab'.repeat(32);
const good = userHashOf(secret, 'user-42');
const forged = userHashOf('another secret', 'user-42');

function perCall(label: string, run: () => unknown): void {
  for (let i = 0; i < 10_000; i++) run(); // warm up
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) run();
  const { user, system } = process.cpuUsage(start);
  console.log(`${label}: ${(((user + system) * 1000) / calls).toFixed(0)} ns of CPU a call (${calls.toLocaleString('en-US')} calls)`);
}

perCall('hashMatches, a matching hash', () => hashMatches(secret, 'user-42', good));
perCall('hashMatches, a forged hash', () => hashMatches(secret, 'user-42', forged));
perCall('parseUserHash, a well-formed hash', () => parseUserHash(good.toUpperCase()));
perCall('parseUserHash, none', () => parseUserHash(''));
