// The background work on one entry (KnowledgeIngestRequested): a file is parsed, a web page fetched
// (and, with crawl, its site's other pages found and queued as entries of their own), a website
// entry fetched again. The result is written by write-entry.ts in one transaction. A SourceError is
// the source's fault, stored as the entry's error at once; anything else is ours: retried, and on the
// last attempt shown as SOURCE_FAILED. A job for an entry that is gone, or no longer waiting for this
// work, does nothing.
import type { Logger } from '@parley/common/logger.ts';
import type { TextEntry } from '../../generated/prisma/client.ts';
import { isUuid } from '@parley/common/ids.ts';
import type { PublicChange } from '../../core/public-revision.ts';
import type { discoverPages } from '../sources/crawl.ts';
import { parseFile } from '../sources/parse-file.ts';
import type { WebFetchOptions } from '../sources/safe-fetch.ts';
import type { fetchPage } from '../sources/fetch-page.ts';
import { DEFAULT_MAX_PAGES, NO_TEXT as NO_TEXT_ON_PAGE } from '../sources/web-source.ts';
import { FILE_ERRORS, SOURCE_FAILED, SourceError } from '../sources/source-error.ts';
import { ENTRY_STATUS, SOURCE_TYPE } from '../knowledge-base.ts';
import { INGEST_KIND, ingestJobId, type IngestRequest, type PublishIngest } from './ingest-requests.ts';
import {
  completeEntry,
  cutTitle,
  failEntry,
  keepEntryText,
  replaceEntryText,
  type CompleteOutcome,
  type RefreshOutcome,
  type WriteEntryDeps,
} from './write-entry.ts';

/** Helpers A and B's readers, replaceable in tests. */
export interface KnowledgeSources {
  parseFile: typeof parseFile;
  fetchPage: typeof fetchPage;
  discoverPages: typeof discoverPages;
}

// The fetcher and the crawler (undici, linkedom, Readability, fast-xml-parser) are loaded by the first
// web entry, not when the service starts: ≈ 300 modules a process that never fetches a page would hold.
export const defaultSources: KnowledgeSources = {
  parseFile,
  fetchPage: async (...args) => (await import('../sources/fetch-page.ts')).fetchPage(...args),
  discoverPages: async (...args) => (await import('../sources/crawl.ts')).discoverPages(...args),
};

export interface IngestDeps extends WriteEntryDeps {
  logger: Logger;
  sources: KnowledgeSources;
  parseBounds: { timeoutMs: number; memoryMb: number; maxChars: number };
  fetchOptions: WebFetchOptions;
  publicChanged: PublicChange;
  /** Queues the embedding of an entry's new chunks (embeddings/knowledge-embeddings.ts). */
  entryIndexed: (entry: { chatbotId: string; entryId: string }) => Promise<void>;
  publishIngest: PublishIngest;
  /** Told when an entry's first processing ends, ready or failed (webhook events); never throws. */
  entryFinished?: (entry: { chatbotId: string; entryId: string; outcome: 'ready' | 'failed'; error: string }) => Promise<void>;
}

/** How the work on one entry ends: its result written, or its failure recorded. */
interface Work {
  run(): Promise<CompleteOutcome | RefreshOutcome>;
  fail(error: string): Promise<CompleteOutcome | RefreshOutcome>;
}

export async function ingestEntry(deps: IngestDeps, request: IngestRequest, opts: { lastAttempt: boolean }): Promise<string> {
  if (!isUuid(request.entryId) || !isUuid(request.chatbotId)) return 'skipped';
  const entry = await deps.db.textEntry.findUnique({ where: { id: request.entryId } });
  if (!entry || entry.chatbotId !== request.chatbotId) return 'skipped';
  const work = workFor(deps, entry, request);
  if (!work) return 'skipped';
  let result: CompleteOutcome | RefreshOutcome;
  try {
    result = await work.run();
  } catch (err) {
    if (err instanceof SourceError) result = await work.fail(err.message);
    else if (opts.lastAttempt) {
      deps.logger.error({ err, entryId: entry.id, kind: request.kind }, 'knowledge source failed on its last attempt');
      result = await work.fail(SOURCE_FAILED);
    } else throw err;
  }
  await announce(deps, entry.id, result);
  if (result.outcome === 'ready' || result.outcome === 'failed')
    await deps.entryFinished?.({
      chatbotId: result.chatbotId,
      entryId: entry.id,
      outcome: result.outcome,
      error: result.outcome === 'failed' ? result.error : '',
    });
  return result.outcome;
}

function workFor(deps: IngestDeps, entry: TextEntry, request: IngestRequest): Work | undefined {
  const processing = [ENTRY_STATUS.processing];
  const failFirst = (error: string) => failEntry(deps.db, { entryId: entry.id, error, from: processing });
  if (request.kind === INGEST_KIND.file) {
    if (entry.status !== ENTRY_STATUS.processing) return undefined;
    return { run: () => ingestFile(deps, entry), fail: failFirst };
  }
  if (request.kind === INGEST_KIND.url) {
    if (entry.status !== ENTRY_STATUS.processing) return undefined;
    return { run: () => ingestPage(deps, entry, request, processing), fail: failFirst };
  }
  if (request.kind === INGEST_KIND.refresh && entry.sourceType === SOURCE_TYPE.url) {
    // A page that could not be fetched the first time is simply tried again.
    if (entry.status === ENTRY_STATUS.failed) {
      const from = [ENTRY_STATUS.failed];
      return {
        run: () => ingestPage(deps, entry, { ...request, crawl: false }, from),
        fail: (error) => failEntry(deps.db, { entryId: entry.id, error, from }),
      };
    }
    if (entry.status === ENTRY_STATUS.ready) {
      return { run: () => refreshPage(deps, entry), fail: (error) => keepEntryText(deps.db, { entryId: entry.id, error }) };
    }
  }
  return undefined;
}

async function ingestFile(deps: IngestDeps, entry: TextEntry): Promise<CompleteOutcome> {
  const upload = await deps.db.knowledgeUpload.findUnique({ where: { entryId: entry.id } });
  if (!upload) throw new Error(`the upload of entry ${entry.id} is missing`);
  const name = entry.sourceName ?? entry.title;
  const parsed = await deps.sources.parseFile(new Uint8Array(upload.content), name, deps.parseBounds);
  if (!parsed.text.trim()) throw new SourceError(FILE_ERRORS.noText);
  return completeEntry(deps, { entryId: entry.id, title: fileTitle(parsed.title, name), text: parsed.text });
}

/** A document's own title when it has a real one, else its file name. */
export function fileTitle(parsedTitle: string | undefined, fileName: string): string {
  const title = cutTitle((parsedTitle ?? '').replace(/\s+/g, ' '));
  return title && !/^untitled\b/i.test(title) ? title : fileName;
}

async function ingestPage(deps: IngestDeps, entry: TextEntry, request: IngestRequest, from: string[]): Promise<CompleteOutcome> {
  const page = await deps.sources.fetchPage(entry.sourceUrl!, deps.fetchOptions);
  if (!page.text.trim()) throw new SourceError(NO_TEXT_ON_PAGE);
  const otherPages = request.crawl ? await crawl(deps, entry, page, request.maxPages || DEFAULT_MAX_PAGES) : [];
  return completeEntry(deps, { entryId: entry.id, title: page.title || page.url, text: page.text, sourceUrl: page.url, otherPages, from });
}

/** The site's other pages; a crawl that fails still leaves the first page. */
async function crawl(deps: IngestDeps, entry: TextEntry, page: { url: string; links: string[] }, maxPages: number): Promise<string[]> {
  try {
    const found = await deps.sources.discoverPages(page.url, { ...deps.fetchOptions, maxPages, startLinks: page.links });
    const first = new Set([page.url, entry.sourceUrl]);
    return found.filter((url) => !first.has(url)).slice(0, Math.max(0, maxPages - 1));
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, entryId: entry.id }, "could not find the site's other pages");
    return [];
  }
}

async function refreshPage(deps: IngestDeps, entry: TextEntry): Promise<RefreshOutcome> {
  const page = await deps.sources.fetchPage(entry.sourceUrl!, deps.fetchOptions);
  if (!page.text.trim()) throw new SourceError(NO_TEXT_ON_PAGE);
  return replaceEntryText(deps, { entryId: entry.id, title: page.title || page.url, text: page.text, sourceUrl: page.url });
}

/** What changed answers is announced (public revision, embeddings); a crawl's new pages are queued. */
async function announce(deps: IngestDeps, entryId: string, result: CompleteOutcome | RefreshOutcome): Promise<void> {
  if (result.outcome !== 'ready' && result.outcome !== 'changed') return;
  await deps.publicChanged(result.chatbotId);
  try {
    await deps.entryIndexed({ chatbotId: result.chatbotId, entryId });
  } catch (err) {
    // The text is saved and searchable by its words; the embeddings' own sweep catches up.
    deps.logger.warn({ err: (err as Error).message, entryId }, 'could not queue the embedding of an entry');
  }
  if (result.outcome !== 'ready') return;
  for (const page of result.newPages) {
    try {
      await deps.publishIngest(
        { chatbotId: result.chatbotId, entryId: page.entryId, kind: INGEST_KIND.url },
        ingestJobId.first('url', page.entryId),
      );
    } catch (err) {
      // The entry waits in processing; the relay (ingest-relay.ts) publishes it again.
      deps.logger.warn({ err: (err as Error).message, entryId: page.entryId }, 'could not queue a crawled page');
    }
  }
}
