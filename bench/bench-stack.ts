// What the benchmarks that run the whole product share: a fresh database of their own, the stack's
// processes found in /proc (their CPU time, the one to kill), and JSON calls to the gateway.
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest, type Agent } from 'node:http';
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

/** What became of one public chat message: an answer, a clear 503, a stream ended by a clear error event, or anything else. */
export type ChatOutcome = 'answered' | 'refused-503' | 'stream-error' | 'other';

/**
 * A POST whose whole answer is read as text (a JSON answer or a whole SSE stream), through `agent`;
 * it fails on a broken connection, an aborted answer or no answer within `timeoutMs`.
 */
export function postText(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body);
    const req = httpRequest(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(payload.length) } }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
      res.on('aborted', () => reject(new Error(`response aborted after ${text.length} chars (status ${res.statusCode})`)));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => reject(new Error(`${err.message}${req.reusedSocket ? ' (on a reused connection)' : ''}`)));
    req.end(payload);
  });
}

/** Sorts one message's response into an outcome, and the session id it issued (if any). */
export function classifyChat(stream: boolean, status: number, text: string): { outcome: ChatOutcome; detail: string; sessionId?: string } {
  const short = `${status} ${text.slice(0, 200)}`;
  if (status === 503) {
    try {
      const body = JSON.parse(text) as { message?: unknown };
      if (typeof body.message === 'string' && body.message) return { outcome: 'refused-503', detail: body.message };
    } catch {
      // not JSON: below
    }
    return { outcome: 'other', detail: short };
  }
  if (status !== 200) return { outcome: 'other', detail: short };
  if (!stream) {
    try {
      const body = JSON.parse(text) as { message?: unknown; sessionId?: unknown };
      if (typeof body.message === 'string' && body.message && typeof body.sessionId === 'string')
        return { outcome: 'answered', detail: '', sessionId: body.sessionId };
    } catch {
      // below
    }
    return { outcome: 'other', detail: short };
  }
  const events = [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({
    name: m[1],
    data: JSON.parse(m[2]) as { message?: string; sessionId?: string },
  }));
  const last = events[events.length - 1];
  if (last?.name === 'done' && last.data.message && last.data.sessionId)
    return { outcome: 'answered', detail: '', sessionId: last.data.sessionId };
  // A stream that failed after it had started can only end with an error event; its message must be
  // the clear "unavailable" one, not the generic "something went wrong" of an unexpected error.
  if (last?.name === 'error' && last.data.message && !/something went wrong/i.test(last.data.message))
    return { outcome: 'stream-error', detail: last.data.message };
  return { outcome: 'other', detail: short.slice(-200) };
}
