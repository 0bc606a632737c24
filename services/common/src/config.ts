// Environment validation: every process reads its settings through here, and a bad value stops the
// process at start with a message that names the variable.
import { hostname } from 'node:os';
import { DEVELOPMENT_SERVICE_SECRET } from './service-auth.ts';
import { parseServiceTargets } from './transport/balanced.ts';

export class ConfigError extends Error {}

/** Parses one variable; `env` is the whole environment, for a rule that depends on another variable. */
type Parser<T> = (raw: string, name: string, env: NodeJS.ProcessEnv) => T;

export interface Var<T> {
  parse: Parser<T>;
  default?: string;
  optional?: boolean;
}

export const url =
  (protocols: string[]): Parser<string> =>
  (raw, name) => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(`${name} must be a URL, got "${raw}"`);
    }
    if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
      throw new ConfigError(`${name} must be a ${protocols.join(' or ')} URL, got "${raw}"`);
    }
    return raw.replace(/\/$/, '');
  };

export const port: Parser<number> = (raw, name) => {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 0 || n > 65535) throw new ConfigError(`${name} must be a port number (0-65535), got "${raw}"`);
  return n;
};

export const int =
  (min: number, max: number): Parser<number> =>
  (raw, name) => {
    const n = Number(raw);
    if (!/^-?\d+$/.test(raw) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    return n;
  };

export const text: Parser<string> = (raw) => raw;

export const oneOf =
  <T extends string>(values: readonly T[]): Parser<T> =>
  (raw, name) => {
    if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };

type Spec = Record<string, Var<unknown>>;
type Result<S extends Spec> = { [K in keyof S]: S[K] extends Var<infer T> ? (S[K]['optional'] extends true ? T | undefined : T) : never };

/** Reads and validates the given variables; throws ConfigError naming the first bad one. */
export function readConfig<S extends Spec>(spec: S, env: NodeJS.ProcessEnv = process.env): Result<S> {
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(spec)) {
    const raw = env[name] === undefined || env[name] === '' ? v.default : env[name];
    if (raw === undefined) {
      if (v.optional) {
        out[name] = undefined;
        continue;
      }
      throw new ConfigError(`${name} is required but not set`);
    }
    out[name] = v.parse(raw, name, env);
  }
  return out as Result<S>;
}

/** Like readConfig, but prints the problem and exits: for a process's start. */
export function loadConfig<S extends Spec>(spec: S, env: NodeJS.ProcessEnv = process.env): Result<S> {
  try {
    return readConfig(spec, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Invalid environment: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** A switch: "true" or "false". */
export const bool: Parser<boolean> = (raw, name) => {
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  return raw === 'true';
};

/** An interface address to listen on: an IP address or a host name. */
export const host: Parser<string> = (raw, name) => {
  if (!/^[A-Za-z0-9.:-]+$/.test(raw)) throw new ConfigError(`${name} must be an IP address or host name, got "${raw}"`);
  return raw;
};

/** A process's name among its replicas: printable, short, no spaces. */
export const instanceName: Parser<string> = (raw, name) => {
  if (!/^[\w.:-]{1,100}$/.test(raw)) throw new ConfigError(`${name} must be 1 to 100 letters, digits, '.', ':', '_' or '-', got "${raw}"`);
  return raw;
};

/**
 * The deployment's service secret (service-auth.ts): 32+ characters. Unset outside production it is a
 * fixed development secret; production refuses that one, so it must be set there.
 */
export const serviceSecret: Parser<string> = (raw, name, env) => {
  if (env.NODE_ENV === 'production' && raw === DEVELOPMENT_SERVICE_SECRET) {
    throw new ConfigError(`${name} is required in production (32 or more characters, the same for every process)`);
  }
  if (raw.length < 32) throw new ConfigError(`${name} must have at least 32 characters; the value is not shown`);
  return raw;
};

/**
 * A second service secret a service also accepts (never signs with), so the secret rotates without
 * downtime (docs/adr/0025-process-lifecycle.md): the same rules as SERVICE_SECRET.
 */
export const previousServiceSecret: Parser<string> = (raw, name, env) => {
  if (env.NODE_ENV === 'production' && raw === DEVELOPMENT_SERVICE_SECRET) {
    throw new ConfigError(`${name} must not be the development secret in production`);
  }
  if (raw.length < 32) throw new ConfigError(`${name} must have at least 32 characters; the value is not shown`);
  return raw;
};

/** Settings every service shares. Defaults let `npm start` run against local PostgreSQL and Redis. */
export const commonVars = {
  DATABASE_URL: { parse: url(['postgres', 'postgresql']), default: 'postgresql://postgres@127.0.0.1:5432/parley' },
  REDIS_URL: { parse: url(['redis', 'rediss']), default: 'redis://127.0.0.1:6379' },
  LOG_LEVEL: { parse: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const), default: 'info' },
  // Internal services answer only on loopback unless told otherwise (containers: 0.0.0.0 on the
  // compose network); only the gateway is a public door.
  SERVICE_HOST: { parse: host, default: '127.0.0.1' },
  SERVICE_SECRET: { parse: serviceSecret, default: DEVELOPMENT_SERVICE_SECRET },
  SERVICE_SECRET_PREVIOUS: { parse: previousServiceSecret, optional: true },
  // false: the process does not migrate its schema at start; the one-shot migration command
  // (`node services/<name>/src/migrate.ts`) does, before the rollout.
  MIGRATE_ON_START: { parse: bool, default: 'true' },
  // The size of the service's main connection pool; a service's further pools take a share of it
  // (database.ts, poolShare): the connection budget is in docs/adr/0025-process-lifecycle.md.
  DATABASE_POOL_MAX: { parse: int(1, 1000), default: '10' },
  // How a process stops (lifecycle.ts), the same for every service and the gateway. SHUTDOWN_DRAIN_MS:
  // how long it keeps serving after SIGTERM with its readiness failing, so the load balancer stops
  // sending before the listener closes (0 locally, a few seconds behind one). SHUTDOWN_TIMEOUT_MS: how
  // long, after that, the answers and jobs in flight may take; the default is longer than the gateway's
  // CHAT_TIMEOUT_MS (60 s) and the model's OPENAI_TIMEOUT_MS (30 s).
  SHUTDOWN_DRAIN_MS: { parse: int(0, 600_000), default: '0' },
  SHUTDOWN_TIMEOUT_MS: { parse: int(1000, 3_600_000), default: '65000' },
  // off: the process serves its RPCs only, with no queue consumers and no periodic sweeps, so an
  // operator can run the background work on processes (or machines) of its own.
  WORKERS: { parse: oneOf(['on', 'off'] as const), default: 'on' },
  // Queue workers (queues.ts): how long an idle one blocks on Redis before asking again (a new job
  // wakes it at once), and how often each looks for jobs a stopped worker left half done.
  QUEUE_IDLE_WAIT_SECONDS: { parse: int(1, 3600), default: '5' },
  QUEUE_STALLED_CHECK_SECONDS: { parse: int(1, 3600), default: '30' },
  // This process among its replicas, in every log line and exported span (a pod's name in Kubernetes).
  INSTANCE_ID: { parse: instanceName, default: `${hostname()}-${process.pid}` },
  // Where spans go over OTLP/HTTP (tracing.ts); unset, no span leaves the process.
  OTEL_EXPORTER_OTLP_ENDPOINT: { parse: url(['http', 'https']), optional: true },
} satisfies Spec;

/** Where each service listens by default; `<SERVICE>_URL` points callers at it. */
export const defaultServiceUrls = {
  AUTH_URL: 'http://127.0.0.1:4001',
  CHATBOT_URL: 'http://127.0.0.1:4002',
  CHAT_URL: 'http://127.0.0.1:4003',
  BILLING_URL: 'http://127.0.0.1:4004',
} as const;

/**
 * Where a service is called (transport/balanced.ts): one base URL, a comma-separated list of them (one
 * per replica), or one host name whose addresses are each a replica.
 */
export const serviceUrl = (name: keyof typeof defaultServiceUrls): Var<string> => ({
  parse: (raw, varName) => {
    try {
      return parseServiceTargets(raw).join(',');
    } catch (err) {
      throw new ConfigError(`${varName} ${(err as Error).message}`);
    }
  },
  default: defaultServiceUrls[name],
});

/** How often a service URL that is one host name is looked up again, for replicas come and gone (ms). */
export const serviceResolveInterval: Var<number> = { parse: int(100, 300_000), default: '5000' };
