// `npm start`: builds the web app when its sources changed, starts every process, prints the URL.
import { ensureDatabase } from '@parley/common/migrations.ts';
import { buildWebIfStale } from './web-build.ts';
import { startStack } from './stack.ts';

const started = Date.now();
process.env.DATABASE_URL ||= 'postgresql://postgres@127.0.0.1:5432/parley';
process.env.REDIS_URL ||= 'redis://127.0.0.1:6379';

await ensureDatabase(process.env.DATABASE_URL);
buildWebIfStale();
const stack = await startStack({ output: 'inherit' });
console.log(`\nParley is running at ${stack.url}  (ready in ${((Date.now() - started) / 1000).toFixed(1)} s; Ctrl+C stops it)\n`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  await stack.stop();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
// A process that dies is restarted by the stack; this settles only when one keeps crashing.
const { name, code } = await stack.exited;
console.error(`${name} kept crashing (last exit code ${code}); Parley has stopped`);
await stack.stop();
process.exit(1);
