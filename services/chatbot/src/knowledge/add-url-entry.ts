// A web page (and, with crawl, its site) as a new entry in status processing; the page is fetched
// by the ingest job (ingest/ingest-entry.ts), which also adds the other pages a crawl finds.
import { invalid } from '@parley/common/rpc-errors.ts';
import type { TextEntry } from '../generated/prisma/client.ts';
import { findOwnedChatbot, type OwnedChatbotRef } from '../core/owned-chatbot.ts';
import { queueFirstJob, type EntryJobDeps } from './add-file-entry.ts';
import { INGEST_KIND } from './ingest/ingest-requests.ts';
import { ENTRY_STATUS, SOURCE_TYPE } from './knowledge-base.ts';
import { DEFAULT_MAX_PAGES, MAX_PAGES_LIMIT, normalizeUrl } from './sources/web-source.ts';
import { SourceError } from './sources/source-error.ts';

export const MAX_PAGES_OUT_OF_RANGE = `maxPages must be between 1 and ${MAX_PAGES_LIMIT}`;

export async function addUrlEntry(
  deps: EntryJobDeps,
  input: OwnedChatbotRef & { url: string; crawl: boolean; maxPages: number },
): Promise<TextEntry> {
  const chatbot = await findOwnedChatbot(deps.db, input);
  let url: string;
  try {
    url = normalizeUrl(input.url);
  } catch (err) {
    if (err instanceof SourceError) throw invalid(err.message);
    throw err;
  }
  const maxPages = input.maxPages === 0 ? DEFAULT_MAX_PAGES : input.maxPages;
  if (!Number.isInteger(maxPages) || maxPages < 1 || maxPages > MAX_PAGES_LIMIT) throw invalid(MAX_PAGES_OUT_OF_RANGE);

  const entry = await deps.db.textEntry.create({
    data: {
      chatbotId: chatbot.id,
      title: url,
      content: '',
      sourceType: SOURCE_TYPE.url,
      sourceUrl: url,
      status: ENTRY_STATUS.processing,
    },
  });
  await queueFirstJob(deps, entry, INGEST_KIND.url, input.crawl ? { crawl: true, maxPages } : {});
  return entry;
}
