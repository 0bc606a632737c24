// What the benchmarks that run the whole product share: a fresh database of their own, the stack's
// processes found in /proc (their CPU time, the one to kill), and JSON calls to the gateway.
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { PROCESSES } from '../scripts/stack.ts';

/** Fields of /proc/PID/stat after the command name: [0] state, [1] ppid, [11] utime, [12] stime. */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** A process's CPU time in clock ticks (10 ms); 0 once it is gone. */
export function cpuTicks(pid: number): number {
  try {
    const fields = statFields(pid);
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The stack's processes (this process's children, as startStack spawns them), by name. */
export function stackChildren(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(entry)[1]) !== process.pid) continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const spec = PROCESSES.find((p) => cmd.includes(p.entry));
      if (spec) out[spec.name] = Number(entry);
    } catch {
      // gone
    }
  }
  return out;
}

/** Drops and creates `name` beside the configured database; the admin client drops it again at the end. */
export async function freshDatabase(baseUrl: string, name: string): Promise<{ url: string; admin: pg.Client }> {
  const adminUrl = new URL(baseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), admin };
}

/** A JSON POST to the gateway; anything but 2xx throws with the answer. */
export async function postJson<T>(baseUrl: string, path: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}
