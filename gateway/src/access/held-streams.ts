// Every long-lived response a member or an API key holds checks access for as long as it lives
// (docs/adr/0035-access-for-as-long-as-a-response-lives.md): the inbox's events, a key's streamed
// answer, and any stream added later, through one registry. A stream is held with whose it is (user,
// workspace, key) and how to ask again (auth, fresh, never a cache). It is asked again:
//   - at once, when auth announces a change naming its user, workspace or key (access-changes.ts,
//     Redis pub/sub, so the change may land on any replica);
//   - every recheckMs, the safety net for an announcement lost (Redis down when auth published);
//   - when the watch's connection came back after a loss;
//   - at the key's own expiry, when it has one.
// While a re-check is under way the stream writes nothing (`allowed` waits for it), so nothing that
// arrives after the change reaches someone who lost access. A refusal ends the stream with its final
// event; a failure to ask (auth unreachable) ends it without one, and the client reconnects, which
// authenticates it afresh.
import type { AccessChange } from '@parley/common/access-changes.ts';
import type { Logger } from '@parley/common/logger.ts';
import { gauge } from '@parley/common/metrics.ts';
import { Code, ConnectError } from '@parley/common/rpc-errors.ts';

/** The final event's words when a member's access ended. */
export const ACCESS_ENDED = 'You no longer have access to this workspace.';
/** The same for an API key revoked, rolled past its overlap, or expired. */
export const KEY_ENDED = 'This API key was revoked or has expired.';

/** Why a held stream ends: a refusal (401, 403) with its message, or a failure to ask (no final event is owed). */
export interface StreamEnd {
  status: 401 | 403 | 503;
  message: string;
}

export interface Holder {
  userId?: string;
  workspaceId?: string;
  apiKeyId?: string;
}

export interface HoldOptions {
  holder: Holder;
  /**
   * Asks again whether access holds; resolves to when it stops by itself (ms since the epoch,
   * Infinity for never), and throws auth's refusal when it no longer holds.
   */
  check(): Promise<number>;
  /**
   * `mark()` taken before access was first checked: a change announced since (while the first check
   * was under way) makes the stream ask again at once, so none falls between the check and the hold.
   */
  since: number;
  /** When access stops by itself, as known at the start (a key's expiry); Infinity by default. */
  expiresAtMs?: number;
  /** Writes the stream's final event (for a refusal) and ends it; called at most once. */
  end(reason: StreamEnd): void;
}

export interface HeldStream {
  /** Resolves once access is known to hold (waiting for a re-check under way): true, or false once the stream ended. */
  allowed(): Promise<boolean>;
  /** The stream ended on its own (the client left, the upstream ended): it is no longer watched. */
  release(): void;
}

const heldGauge = gauge('parley_gateway_held_streams', 'Long-lived responses this gateway holds and re-checks access for.', []);

/** How many re-checks one periodic round runs at once: 500 held streams ask auth in about 63 small batches. */
const RECHECK_CONCURRENCY = 8;
/** setTimeout's limit (about 24.8 days): a later expiry is re-armed by the periodic rounds. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Entry {
  holder: Holder;
  options: HoldOptions;
  /** The re-check under way, which writes wait for. */
  pending: Promise<boolean> | null;
  ended: boolean;
  expiry?: ReturnType<typeof setTimeout>;
}

export class HeldStreams {
  private readonly held = new Set<Entry>();
  /** Changes announced so far (see `mark`). */
  private changes = 0;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly opts: { recheckMs: number; logger: Logger };

  constructor(opts: { recheckMs: number; logger: Logger }) {
    this.opts = opts;
    this.timer = setInterval(() => void this.recheckAll(), opts.recheckMs);
    this.timer.unref();
  }

  get size(): number {
    return this.held.size;
  }

  /** Taken before a stream's first check of access, and given to `hold`. */
  mark(): number {
    return this.changes;
  }

  hold(options: HoldOptions): HeldStream {
    const lower = (id?: string) => id?.toLowerCase();
    const entry: Entry = {
      holder: {
        userId: lower(options.holder.userId),
        workspaceId: lower(options.holder.workspaceId),
        apiKeyId: lower(options.holder.apiKeyId),
      },
      options,
      pending: null,
      ended: false,
    };
    this.held.add(entry);
    heldGauge.inc();
    this.armExpiry(entry, options.expiresAtMs ?? Infinity);
    if (options.since !== this.changes) void this.recheck(entry);
    return {
      allowed: async () => {
        if (entry.ended) return false;
        return entry.pending ? entry.pending : true;
      },
      release: () => this.forget(entry),
    };
  }

  /** An announced change: every stream it may concern is asked about again. */
  changed(change: AccessChange): void {
    this.changes += 1;
    const users = new Set(change.userIds);
    const workspaces = new Set(change.workspaceIds);
    const keys = new Set(change.apiKeyIds);
    for (const entry of this.held) {
      const { userId, workspaceId, apiKeyId } = entry.holder;
      if ((userId && users.has(userId)) || (workspaceId && workspaces.has(workspaceId)) || (apiKeyId && keys.has(apiKeyId)))
        void this.recheck(entry);
    }
  }

  /** Every held stream asked about again, a few at a time. */
  async recheckAll(): Promise<void> {
    this.changes += 1;
    const entries = [...this.held];
    for (let i = 0; i < entries.length; i += RECHECK_CONCURRENCY)
      await Promise.all(entries.slice(i, i + RECHECK_CONCURRENCY).map((e) => this.recheck(e)));
  }

  /** The gateway stops: nothing is watched any more (the streams themselves are ended by their owners). */
  close(): void {
    clearInterval(this.timer);
    for (const entry of [...this.held]) this.forget(entry);
  }

  private recheck(entry: Entry): Promise<boolean> {
    if (entry.ended) return Promise.resolve(false);
    // A re-check under way answers for this one too: it started after whatever asked for this one.
    entry.pending ??= this.ask(entry).finally(() => {
      entry.pending = null;
    });
    return entry.pending;
  }

  private async ask(entry: Entry): Promise<boolean> {
    try {
      const expiresAtMs = await entry.options.check();
      if (expiresAtMs <= Date.now()) throw new ConnectError('expired', Code.Unauthenticated);
      this.armExpiry(entry, expiresAtMs);
      return !entry.ended;
    } catch (err) {
      this.endEntry(entry, endOf(err, entry.holder));
      if (!(err instanceof ConnectError) || !REFUSALS.has(err.code))
        this.opts.logger.warn({ err: (err as Error).message }, 'could not check a held stream’s access; it ends and the client reconnects');
      return false;
    }
  }

  private armExpiry(entry: Entry, expiresAtMs: number): void {
    clearTimeout(entry.expiry);
    entry.expiry = undefined;
    if (!Number.isFinite(expiresAtMs)) return;
    const delay = Math.max(0, expiresAtMs - Date.now());
    if (delay > MAX_TIMER_MS) return;
    entry.expiry = setTimeout(() => void this.recheck(entry), delay + 1);
    entry.expiry.unref();
  }

  private endEntry(entry: Entry, reason: StreamEnd): void {
    if (entry.ended) return;
    this.forget(entry);
    try {
      entry.options.end(reason);
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message }, 'a held stream failed to end cleanly');
    }
  }

  private forget(entry: Entry): void {
    if (entry.ended) return;
    entry.ended = true;
    clearTimeout(entry.expiry);
    if (this.held.delete(entry)) heldGauge.dec();
  }
}

/** Auth's answers that mean access no longer holds. */
const REFUSALS = new Set([Code.Unauthenticated, Code.NotFound, Code.PermissionDenied]);

function endOf(err: unknown, holder: Holder): StreamEnd {
  const message = holder.apiKeyId ? KEY_ENDED : ACCESS_ENDED;
  if (!(err instanceof ConnectError) || !REFUSALS.has(err.code)) return { status: 503, message };
  return { status: err.code === Code.Unauthenticated ? 401 : 403, message };
}
