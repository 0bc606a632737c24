// What the tests need from the machine: PostgreSQL and Redis answering (started with the machine's
// own commands when they have stopped) and Debian's Chromium for the end-to-end tests.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';

function answers(url: string): Promise<boolean> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol.startsWith('redis') ? 6379 : 5432));
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port, timeout: 1500 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

function tryRun(cmd: string): void {
  try {
    execSync(cmd, { stdio: 'inherit' });
  } catch {
    // reported below if the service still does not answer
  }
}

export async function ensureServices(): Promise<void> {
  const db = process.env.DATABASE_URL!;
  const redis = process.env.REDIS_URL!;
  if (!(await answers(db)) && existsSync('/usr/bin/pg_ctlcluster')) {
    console.log('› PostgreSQL is not answering: starting it');
    tryRun('pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start');
  }
  if (!(await answers(redis)) && existsSync('/usr/bin/redis-server')) {
    console.log('› Redis is not answering: starting it');
    tryRun('redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no');
  }
  for (const [name, url] of [
    ['PostgreSQL', db],
    ['Redis', redis],
  ] as const) {
    if (!(await answers(url)))
      throw new Error(`${name} does not answer at ${url}: start it or set ${name === 'Redis' ? 'REDIS_URL' : 'DATABASE_URL'}`);
  }
}

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  console.log("› installing Debian's Chromium for the end-to-end tests");
  if (process.getuid?.() !== 0)
    throw new Error(`Chromium is missing at ${CHROMIUM}: run "sudo apt-get install -y chromium" (or set CHROMIUM_PATH)`);
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-liberation', { stdio: 'inherit' });
}
