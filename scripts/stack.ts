// Starts the whole product as child processes: every service and the gateway (which serves the
// built web app and the API on one port), and restarts any that dies once the product runs.
// Used by `npm start`, the end-to-end tests and the benchmarks.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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

/**
 * How every process of the product holds its memory (docs/adr/0020-process-memory.md). Left to
 * themselves on a machine with this much memory, V8 gives each process a young generation of
 * 2 × 64 MB and lets the old one grow to several times what survived its last collection, and glibc
 * keeps freed memory in per-thread arenas: one export took the gateway from ≈ 160 to ≈ 460 MB, a busy
 * public chat the chat service to ≈ 450 MB. These keep the young generation at 2 × 8 MB, the old
 * generation's growth at 30 %, glibc at two arenas with large blocks given back when freed, and
 * TypeScript stripped once into a compile cache rather than by a compiler loaded into every process
 * (the first start after a change writes it). The price is about a tenth of the public chat's closed-loop
 * throughput on 2 cores (more frequent young collections). Measured with `node bench/export.ts` and
 * `BENCH_PHASES=memory node bench/public-chat.ts` (docs/benchmarks.md).
 * `--expose-gc` lets each process, once quiet after a burst of work, run one collection that gives
 * back what the burst left (services/common/src/rest-memory.ts): ≈ 20–25 MB a process at rest
 * (`BENCH_PHASES=floor node bench/public-chat.ts`).
 */
export const PROCESS_MEMORY = {
  nodeFlags: ['--max-semi-space-size=8', '--heap-growing-percent=30', '--expose-gc'],
  env: {
    MALLOC_ARENA_MAX: '2',
    // Blocks of 128 KiB and more (large Buffers) are mapped on their own and given back when freed,
    // instead of glibc raising the threshold and keeping them in an arena.
    MALLOC_MMAP_THRESHOLD_: '131072',
    NODE_COMPILE_CACHE: join(root, 'node_modules', '.cache', 'node-compile-cache'),
  },
};

/** The gateway's METRICS_PORT in a stack without an offset (its default). */
export const GATEWAY_METRICS_PORT = 9091;

export interface StackOptions {
  /** 'runtime-defaults' runs the processes without PROCESS_MEMORY, for a benchmark to compare. */
  memory?: 'parley' | 'runtime-defaults';
  env?: NodeJS.ProcessEnv;
  /** Added to every default port, so a test stack can run beside a development one. */
  portOffset?: number;
  /** Where child output goes: 'inherit' prefixes each line with the process name; a function gets each line. */
  output?: 'inherit' | 'quiet' | ((name: string, line: string) => void);
  readyTimeoutMs?: number;
}

export interface RunningStack {
  url: string;
  stop(): Promise<void>;
  /** Settles only when the stack gives up: a process failed while starting, or kept crashing. */
  exited: Promise<{ name: string; code: number | null }>;
  /** A process's id (undefined while it waits to be restarted), for a test that signals one. */
  pid(name: string): number | undefined;
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
  // The gateway's /metrics port moves with the others, so stacks side by side do not collide.
  baseEnv.METRICS_PORT ||= String(GATEWAY_METRICS_PORT + offset);
  // The processes sign their calls to each other with this (docs/adr/0012-service-to-service-trust.md):
  // a fresh random one per run unless set, so even `npm start` has no well-known secret.
  baseEnv.SERVICE_SECRET ||= randomBytes(32).toString('base64url');
  const memory = opts.memory === 'runtime-defaults' ? { nodeFlags: [], env: {} } : PROCESS_MEMORY;
  const supervisor = supervise(
    PROCESSES.map((p) => ({
      name: p.name,
      command: process.execPath,
      args: [...memory.nodeFlags, join(root, p.entry)],
      cwd: root,
      env: { ...baseEnv, ...memory.env, PORT: String(ports.get(p.name)) },
    })),
    {
      onLine:
        typeof opts.output === 'function'
          ? opts.output
          : opts.output === 'quiet'
            ? undefined
            : (name, line) => process.stdout.write(`[${name}] ${line}\n`),
    },
  );

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 90_000);
  const failed = supervisor.exited.then(({ name, code }) => {
    throw new Error(`${name} exited with code ${code} while starting`);
  });
  try {
    await Promise.race([
      failed,
      Promise.all(PROCESSES.map((p) => waitReady(`http://127.0.0.1:${ports.get(p.name)}/readyz`, deadline, p.name))),
    ]);
  } catch (err) {
    await supervisor.stop();
    throw err;
  }
  failed.catch(() => {});
  // A process that cannot start is a configuration error, reported at once; one that dies once the
  // product runs is restarted, so one crash never takes the others down.
  supervisor.restartFromNow();
  return { url: `http://localhost:${ports.get('gateway')}`, stop: supervisor.stop, exited: supervisor.exited, pid: supervisor.pid };
}

export interface SupervisedProcess {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export interface SuperviseOptions {
  /** Each line a process writes (stdout and stderr); output is dropped without it. */
  onLine?: (name: string, line: string) => void;
  /** Where restarts and giving up are reported. */
  log?: (message: string) => void;
  /** Restart unexpected exits from the start (startStack turns this on once everything is ready). */
  restart?: boolean;
  backoff?: { initialMs: number; maxMs: number; resetAfterMs: number };
  /** Restarts in a row (each run shorter than resetAfterMs) before giving up and stopping everything. */
  maxRestarts?: number;
  /** How long a process gets to stop after SIGTERM before SIGKILL. */
  killAfterMs?: number;
}

export interface Supervisor {
  stop(): Promise<void>;
  /** Settles once: on the first exit while restarts are off, or when a process keeps crashing. */
  exited: Promise<{ name: string; code: number | null }>;
  restartFromNow(): void;
  /** The running process's id, undefined while it waits to be restarted. */
  pid(name: string): number | undefined;
}

export const DEFAULT_BACKOFF = { initialMs: 250, maxMs: 10_000, resetAfterMs: 30_000 };

/** Runs processes and keeps them running: an unexpected exit is restarted after a doubling backoff. */
export function supervise(specs: SupervisedProcess[], opts: SuperviseOptions = {}): Supervisor {
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  const maxRestarts = opts.maxRestarts ?? 10;
  const log = opts.log ?? ((message: string) => process.stderr.write(`[stack] ${message}\n`));
  let restart = opts.restart ?? false;
  let stopping: Promise<void> | undefined;
  let resolveExit!: (v: { name: string; code: number | null }) => void;
  const exited = new Promise<{ name: string; code: number | null }>((r) => (resolveExit = r));

  interface Slot {
    spec: SupervisedProcess;
    child?: ChildProcess;
    startedAt: number;
    crashes: number;
    timer?: NodeJS.Timeout;
  }
  const slots = specs.map((spec): Slot => ({ spec, startedAt: 0, crashes: 0 }));

  const launch = (slot: Slot) => {
    const { spec } = slot;
    const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
    slot.child = child;
    slot.startedAt = Date.now();
    for (const stream of [child.stdout!, child.stderr!]) {
      const lines = createInterface({ input: stream });
      lines.on('line', (line) => opts.onLine?.(spec.name, line));
    }
    let ended = false;
    const onEnd = (code: number | null, signal: NodeJS.Signals | null) => {
      if (ended) return;
      ended = true;
      slot.child = undefined;
      if (stopping) return;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      if (!restart) {
        resolveExit({ name: spec.name, code });
        return;
      }
      // Only quick crashes in a row make a crash loop; a process that stayed up a while starts over.
      if (Date.now() - slot.startedAt >= backoff.resetAfterMs) slot.crashes = 0;
      slot.crashes += 1;
      if (slot.crashes > maxRestarts) {
        log(`${spec.name} ${how}; it crashed ${slot.crashes} times in a row, giving up and stopping the stack`);
        void stop().then(() => resolveExit({ name: spec.name, code }));
        return;
      }
      const delay = Math.min(backoff.initialMs * 2 ** (slot.crashes - 1), backoff.maxMs);
      log(`${spec.name} ${how}; restarting in ${delay} ms`);
      slot.timer = setTimeout(() => {
        slot.timer = undefined;
        if (!stopping) launch(slot);
      }, delay);
    };
    child.once('exit', onEnd);
    // A process that could not be spawned at all emits only 'error' (and has no pid).
    child.once('error', (err) => {
      if (child.pid !== undefined) return;
      log(`${spec.name} failed to start: ${err.message}`);
      onEnd(null, null);
    });
  };

  const stop = () =>
    (stopping ??= Promise.all(
      slots.map((slot) => {
        clearTimeout(slot.timer);
        const child = slot.child;
        return new Promise<void>((resolve) => {
          if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
          const kill = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 20_000);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill('SIGTERM');
        });
      }),
    ).then(() => {}));

  for (const slot of slots) launch(slot);
  return {
    stop,
    exited,
    restartFromNow: () => {
      restart = true;
    },
    pid: (name) => slots.find((s) => s.spec.name === name)?.child?.pid,
  };
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
