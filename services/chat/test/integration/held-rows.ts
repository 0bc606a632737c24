// For tests that stop one transaction mid-way: a transaction of the test's own holds some rows
// locked until released, and `blockedBy` tells which backends wait on which (pg_blocking_pids).
import { expect } from 'vitest';
import type { Prisma, PrismaClient } from '../../src/generated/prisma/client.ts';

export interface HeldRows {
  /** The holding transaction's backend. */
  pid: number;
  /** Ends the holding transaction (commits it) and waits for it. */
  release: () => Promise<void>;
}

/** Runs `lock` (a SELECT … FOR UPDATE that must find rows) in a transaction held open until released. */
export async function holdRows(db: PrismaClient, lock: (tx: Prisma.TransactionClient) => Promise<unknown[]>): Promise<HeldRows> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let pid = 0;
  const holding = db.$transaction(
    async (tx) => {
      expect(await lock(tx), 'the rows to hold').not.toHaveLength(0);
      [{ pid }] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      await released;
    },
    { timeout: 30_000 },
  );
  await Promise.race([expect.poll(() => pid).not.toBe(0), holding]);
  return {
    pid,
    release: async () => {
      release();
      await holding;
    },
  };
}

/** The backends waiting for a lock that one of `pids` holds. */
export async function blockedBy(db: PrismaClient, pids: number[]): Promise<number[]> {
  const rows = await db.$queryRaw<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE pg_blocking_pids(pid) && ${pids}::int[]`;
  return rows.map((r) => r.pid);
}
