// `npm start` keeps the product up: a process that dies is restarted after a backoff, with a log
// line, while the others keep running; one that keeps crashing stops the stack instead of looping.
// Real child processes, so exits, signals and pids are the operating system's.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { supervise, type SupervisedProcess, type Supervisor } from '../scripts/stack.ts';

const dir = mkdtempSync(join(tmpdir(), 'parley-supervise-'));
const backoff = { initialMs: 100, maxMs: 400, resetAfterMs: 30_000 };

/** A child that prints "up" and stays up; with a marker path, its first run exits with code 1. */
function child(name: string, marker?: string): SupervisedProcess {
  const script = `
    const fs = require('node:fs');
    const marker = process.env.MARKER;
    if (marker && !fs.existsSync(marker)) { fs.writeFileSync(marker, ''); process.exit(1); }
    console.log('up');
    setInterval(() => {}, 1000);
    process.on('SIGTERM', () => process.exit(0));`;
  return { name, command: process.execPath, args: ['-e', script], env: { ...process.env, MARKER: marker ?? '' } };
}

const alive = (pid: number | undefined) => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, what: string, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let running: Supervisor | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('the stack supervisor', () => {
  it('restarts a process that exits, with a log line, and leaves the others running; stop() ends them all', async () => {
    const marker = join(dir, `crash-once-${Date.now()}`);
    const log: string[] = [];
    const ups: string[] = [];
    running = supervise([child('steady'), child('gateway', marker)], {
      restart: true,
      backoff,
      log: (m) => log.push(m),
      onLine: (name, line) => line === 'up' && ups.push(name),
    });
    const steadyPid = await (async () => {
      await until(() => ups.includes('steady'), 'the steady process');
      return running!.pid('steady');
    })();

    await until(() => ups.includes('gateway'), 'the gateway to come back');
    expect(existsSync(marker)).toBe(true);
    expect(log).toEqual(['gateway exited with code 1; restarting in 100 ms']);
    expect(alive(running.pid('gateway'))).toBe(true);
    // The other process was never touched: same pid, still running.
    expect(running.pid('steady')).toBe(steadyPid);
    expect(alive(steadyPid)).toBe(true);

    const pids = [running.pid('steady'), running.pid('gateway')];
    await running.stop();
    expect(pids.map(alive)).toEqual([false, false]);
    expect(log).toHaveLength(1);
  });

  it('gives up on a process that keeps crashing, with a clear message, and stops the others', async () => {
    const log: string[] = [];
    const always: SupervisedProcess = { name: 'chat', command: process.execPath, args: ['-e', 'process.exit(3)'] };
    running = supervise([child('steady'), always], { restart: true, backoff, maxRestarts: 3, log: (m) => log.push(m) });
    await until(() => running!.pid('steady') !== undefined, 'the steady process');
    const steadyPid = running.pid('steady');

    const exit = await running.exited;
    expect(exit).toEqual({ name: 'chat', code: 3 });
    // Doubling, capped: 100, 200, 400 ms, then it stops trying.
    expect(log).toEqual([
      'chat exited with code 3; restarting in 100 ms',
      'chat exited with code 3; restarting in 200 ms',
      'chat exited with code 3; restarting in 400 ms',
      'chat exited with code 3; it crashed 4 times in a row, giving up and stopping the stack',
    ]);
    expect(alive(steadyPid)).toBe(false);
  });

  it('starts the backoff over for a process that stayed up longer than the reset time', async () => {
    const log: string[] = [];
    const late: SupervisedProcess = { name: 'billing', command: process.execPath, args: ['-e', 'setTimeout(() => process.exit(1), 300)'] };
    running = supervise([late], { restart: true, backoff: { ...backoff, resetAfterMs: 200 }, maxRestarts: 2, log: (m) => log.push(m) });
    await until(() => log.length >= 3, 'three crashes', 5000);
    expect(log.slice(0, 3)).toEqual(Array(3).fill('billing exited with code 1; restarting in 100 ms'));
  });

  it('reports the first exit instead of restarting while restarts are off (a stack still starting)', async () => {
    const log: string[] = [];
    running = supervise([child('steady'), { name: 'auth', command: process.execPath, args: ['-e', 'process.exit(2)'] }], {
      backoff,
      log: (m) => log.push(m),
    });
    expect(await running.exited).toEqual({ name: 'auth', code: 2 });
    expect(log).toEqual([]);
  });
});
