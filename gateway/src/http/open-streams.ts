// The gateway's open live streams (a visitor's conversation, the inbox: server-sent events), ended
// together when it shuts down, so the clients reconnect to another replica instead of it waiting for
// them to leave.
import type { Response } from 'express';

/** A gateway's open live streams, ended together when it shuts down. */
export class OpenStreams {
  private readonly open = new Set<Response>();

  add(res: Response): void {
    this.open.add(res);
    res.once('close', () => this.open.delete(res));
  }

  get size(): number {
    return this.open.size;
  }

  /** Ends every open stream; the clients reconnect (to another replica) from the last id they have. */
  async endAll(): Promise<void> {
    for (const res of this.open) res.end();
    this.open.clear();
  }
}
