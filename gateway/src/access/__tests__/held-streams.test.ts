// The held streams' rules without a network: who an announced change concerns, that nothing is
// allowed through while a re-check is under way, the periodic re-check that catches a lost
// announcement, a key's expiry, and a failure to ask that ends the stream without a final event.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accessChange } from '@parley/common/access-changes.ts';
import { createLogger } from '@parley/common/logger.ts';
import { Code, ConnectError, forbidden, unauthenticated } from '@parley/common/rpc-errors.ts';
import { ACCESS_ENDED, HeldStreams, KEY_ENDED, type StreamEnd } from '../held-streams.ts';

const logger = createLogger('held-streams-test', 'silent');
let held: HeldStreams;
afterEach(() => {
  held?.close();
  vi.useRealTimers();
});

/** A held stream whose access answer the test sets, and what ended it. */
function stream(holder: { userId?: string; workspaceId?: string; apiKeyId?: string }, opts: { expiresAtMs?: number } = {}) {
  const state = { answer: (): Promise<number> => Promise.resolve(Infinity), checks: 0, ended: [] as StreamEnd[] };
  const handle = held.hold({
    holder,
    since: held.mark(),
    expiresAtMs: opts.expiresAtMs,
    check: () => {
      state.checks += 1;
      return state.answer();
    },
    end: (reason) => state.ended.push(reason),
  });
  return { state, handle };
}

describe('HeldStreams', () => {
  it('asks again only for the streams a change names, by user, workspace or key, in any case', async () => {
    held = new HeldStreams({ recheckMs: 3_600_000, logger });
    const a = stream({ userId: 'user-a', workspaceId: 'ws-1' });
    const b = stream({ userId: 'user-b', workspaceId: 'ws-2' });
    const k = stream({ apiKeyId: 'key-1', workspaceId: 'ws-3' });
    held.changed(accessChange({ userIds: ['USER-A'] }));
    held.changed(accessChange({ workspaceIds: ['ws-3'] }));
    expect([a.state.checks, b.state.checks, k.state.checks]).toEqual([1, 0, 1]);
    // Once that re-check is over, the next change asks again.
    await new Promise((resolve) => setTimeout(resolve, 0));
    held.changed(accessChange({ apiKeyIds: ['key-1'] }));
    expect(k.state.checks).toBe(2);
  });

  it('lets nothing through while a re-check is under way, and ends the stream with its final event on a refusal', async () => {
    held = new HeldStreams({ recheckMs: 3_600_000, logger });
    const s = stream({ userId: 'u', workspaceId: 'w' });
    expect(await s.handle.allowed()).toBe(true);
    let refuse!: (err: Error) => void;
    s.state.answer = () => new Promise((_, reject) => (refuse = reject));
    held.changed(accessChange({ userIds: ['u'] }));
    let answered: boolean | undefined;
    void s.handle.allowed().then((ok) => (answered = ok));
    await Promise.resolve();
    expect(answered).toBeUndefined();
    refuse(forbidden('no'));
    await vi.waitFor(() => expect(answered).toBe(false));
    expect(s.state.ended).toEqual([{ status: 403, message: ACCESS_ENDED }]);
    expect(held.size).toBe(0);
    expect(await s.handle.allowed()).toBe(false);
  });

  it('says 401 for a session that ended, and the key words for a key', async () => {
    held = new HeldStreams({ recheckMs: 3_600_000, logger });
    const member = stream({ userId: 'u' });
    const key = stream({ apiKeyId: 'k' });
    member.state.answer = key.state.answer = () => Promise.reject(unauthenticated('gone'));
    held.changed(accessChange({ userIds: ['u'], apiKeyIds: ['k'] }));
    await vi.waitFor(() => expect(held.size).toBe(0));
    expect(member.state.ended).toEqual([{ status: 401, message: ACCESS_ENDED }]);
    expect(key.state.ended).toEqual([{ status: 401, message: KEY_ENDED }]);
  });

  it('ends a stream it cannot ask about (auth unreachable) without a final event owed', async () => {
    held = new HeldStreams({ recheckMs: 3_600_000, logger });
    const s = stream({ userId: 'u' });
    s.state.answer = () => Promise.reject(new ConnectError('down', Code.Unavailable));
    held.changed(accessChange({ userIds: ['u'] }));
    await vi.waitFor(() => expect(s.state.ended).toEqual([{ status: 503, message: ACCESS_ENDED }]));
  });

  it('re-checks every held stream periodically, catching a change whose announcement was lost', async () => {
    vi.useFakeTimers();
    held = new HeldStreams({ recheckMs: 60_000, logger });
    const kept = stream({ userId: 'kept' });
    const lost = stream({ userId: 'lost' });
    lost.state.answer = () => Promise.reject(forbidden('removed'));
    await vi.advanceTimersByTimeAsync(59_000);
    expect([kept.state.checks, lost.state.checks]).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect([kept.state.checks, lost.state.checks]).toEqual([1, 1]);
    expect(lost.state.ended).toEqual([{ status: 403, message: ACCESS_ENDED }]);
    expect(kept.state.ended).toEqual([]);
  });

  it("ends a key's stream at the key's expiry, and at the new bound a re-check brings", async () => {
    vi.useFakeTimers();
    held = new HeldStreams({ recheckMs: 3_600_000, logger });
    const s = stream({ apiKeyId: 'k' }, { expiresAtMs: Date.now() + 10_000 });
    // A roll moved the end earlier: the re-check answers the new bound.
    s.state.answer = () => Promise.resolve(Date.now() + 2_000);
    held.changed(accessChange({ apiKeyIds: ['k'] }));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.state.ended).toEqual([]);
    s.state.answer = () => Promise.reject(unauthenticated('expired'));
    await vi.advanceTimersByTimeAsync(1_500);
    expect(s.state.ended).toEqual([{ status: 401, message: KEY_ENDED }]);
  });

  it('asks at once when a change was announced while the first check was under way', async () => {
    held = new HeldStreams({ recheckMs: 3_600_000, logger });
    const since = held.mark();
    held.changed(accessChange({ userIds: ['someone'] }));
    let checks = 0;
    held.hold({ holder: { userId: 'u' }, since, check: async () => (checks++, Infinity), end: () => undefined });
    expect(checks).toBe(1);
  });

  it('forgets a released stream', async () => {
    held = new HeldStreams({ recheckMs: 3_600_000, logger });
    const s = stream({ userId: 'u' });
    s.handle.release();
    held.changed(accessChange({ userIds: ['u'] }));
    expect(s.state.checks).toBe(0);
    expect(held.size).toBe(0);
  });
});
