// Starts the whole product as child processes: every service and the gateway (which serves the
// built web app and the API on one port). Used by `npm start` and by the end-to-end tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

export interface ProcessSpec {
  name: string;
  entry: string;
  /** The environment variable that tells callers where this process listens. */
  urlVar?: string;
  defaultPort: number;
}

/** Every process of the product, in start order (callees before callers). */
export const PROCESSES: ProcessSpec[] = [
  { name: 'auth', entry: 'services/auth/src/main.ts', urlVar: 'AUTH_URL', defaultPort: 4001 },
  { name: 'billing', entry: 'services/billing/src/main.ts', urlVar: 'BILLING_URL', defaultPort: 4004 },
  { name: 'chatbot', entry: 'services/chatbot/src/main.ts', urlVar: 'CHATBOT_URL', defaultPort: 4002 },
  { name: 'chat', entry: 'services/chat/src/main.ts', urlVar: 'CHAT_URL', defaultPort: 4003 },
  { name: 'gateway', entry: 'gateway/src/main.ts', defaultPort: 8080 },
];

export interface StackOptions {
  env?: NodeJS.ProcessEnv;
  /** Added to every default port, so a test stack can run beside a development one. */
  portOffset?: number;
  /** Where child output goes: 'inherit' prefixes each line with the process name. */
  output?: 'inherit' | 'quiet';
  readyTimeoutMs?: number;
}

export interface RunningStack {
  url: string;
  stop(): Promise<void>;
  exited: Promise<{ name: string; code: number | null }>;
}

export async function startStack(opts: StackOptions = {}): Promise<RunningStack> {
  const offset = opts.portOffset ?? 0;
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  const ports = new Map<string, number>();
  for (const p of PROCESSES) {
    const port = p.name === 'gateway' && baseEnv.PORT ? Number(baseEnv.PORT) : p.defaultPort + offset;
    ports.set(p.name, port);
    if (p.urlVar && !opts.env?.[p.urlVar]) baseEnv[p.urlVar] = `http://127.0.0.1:${port}`;
  }
  // The gateway and billing must agree on the product's address (checkout pages and return URLs),
  // and it must be where the gateway really listens.
  baseEnv.PUBLIC_URL ||= `http://localhost:${ports.get('gateway')}`;
  const children: { name: string; child: ChildProcess }[] = [];
  let resolveExit!: (v: { name: string; code: number | null }) => void;
  const exited = new Promise<{ name: string; code: number | null }>((r) => (resolveExit = r));
  let stopping = false;

  const stop = async () => {
    stopping = true;
    await Promise.all(
      children.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  };

  for (const p of PROCESSES) {
    const port = ports.get(p.name)!;
    const child = spawn(process.execPath, [join(root, p.entry)], {
      cwd: root,
      env: { ...baseEnv, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push({ name: p.name, child });
    for (const stream of [child.stdout!, child.stderr!]) {
      const lines = createInterface({ input: stream });
      lines.on('line', (line) => {
        if (opts.output !== 'quiet') process.stdout.write(`[${p.name}] ${line}\n`);
      });
    }
    child.once('exit', (code) => {
      if (!stopping) resolveExit({ name: p.name, code });
    });
  }

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 90_000);
  const failed = exited.then(({ name, code }) => {
    throw new Error(`${name} exited with code ${code} while starting`);
  });
  try {
    await Promise.race([
      failed,
      Promise.all(PROCESSES.map((p) => waitReady(`http://127.0.0.1:${ports.get(p.name)}/readyz`, deadline, p.name))),
    ]);
  } catch (err) {
    await stop();
    throw err;
  }
  failed.catch(() => {});
  return { url: `http://localhost:${ports.get('gateway')}`, stop, exited };
}

async function waitReady(url: string, deadline: number, name: string): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} did not become ready (${url})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
