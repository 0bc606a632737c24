// The gateway's open live streams (GET /api/inbox/events): each lasts until its client goes, so a
// stopping gateway ends them itself instead of waiting out its shutdown deadline with them open; the
// clients open theirs again, on a replica that is serving.
export interface LiveStreams {
  /** Tracks one stream's controller until the returned function is called. */
  track(stream: AbortController): () => void;
  /** Ends every stream open now. */
  closeAll(): Promise<void>;
}

export function liveStreams(): LiveStreams {
  const open = new Set<AbortController>();
  return {
    track(stream) {
      open.add(stream);
      return () => open.delete(stream);
    },
    async closeAll() {
      for (const stream of open) stream.abort();
      open.clear();
    },
  };
}
