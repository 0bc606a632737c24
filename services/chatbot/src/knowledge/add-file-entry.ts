// An uploaded file as a new entry. The type is recognised from the content first, so an unsupported
// file never becomes an entry; then the entry (processing) and the file itself, kept in the
// database for whichever replica's worker parses it, are written in one transaction, and the
// parse job is queued. If queueing fails the entry still waits: the relay (ingest/ingest-relay.ts)
// queues it again.
import { withoutControlCharacters } from '@parley/common/control-characters.ts';
import { invalid } from '@parley/common/rpc-errors.ts';
import type { Logger } from '@parley/common/logger.ts';
import type { PrismaClient, TextEntry } from '../generated/prisma/client.ts';
import { findOwnedChatbot, type OwnedChatbotRef } from '../core/owned-chatbot.ts';
import { INGEST_KIND, ingestJobId, type PublishIngest } from './ingest/ingest-requests.ts';
import { MAX_TITLE_CHARS } from './ingest/write-entry.ts';
import { ENTRY_STATUS, SOURCE_TYPE } from './knowledge-base.ts';
import { detectFileType } from './sources/detect-file-type.ts';
import { SourceError } from './sources/source-error.ts';

export const FILE_REQUIRED = 'Choose a file to upload';
export const FILE_TOO_LARGE = 'File too large';
export const UNSUPPORTED_FILE_TYPE = 'Unsupported file type';
const UNNAMED_FILE = 'Untitled file';

export interface EntryJobDeps {
  db: PrismaClient;
  logger: Logger;
  publishIngest: PublishIngest;
}

export interface AddFileEntryDeps extends EntryJobDeps {
  maxUploadBytes: number;
}

/** The name as shown: no directories (some browsers send them), no control characters, at most MAX_TITLE_CHARS. */
export function cleanFileName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  const name = withoutControlCharacters(base).trim();
  return [...name].slice(0, MAX_TITLE_CHARS).join('') || UNNAMED_FILE;
}

export async function addFileEntry(
  deps: AddFileEntryDeps,
  input: OwnedChatbotRef & { fileName: string; content: Uint8Array },
): Promise<TextEntry> {
  const chatbot = await findOwnedChatbot(deps.db, input);
  if (input.content.byteLength === 0) throw invalid(FILE_REQUIRED);
  if (input.content.byteLength > deps.maxUploadBytes) throw invalid(FILE_TOO_LARGE);
  const fileName = cleanFileName(input.fileName);
  let type: unknown;
  try {
    type = await detectFileType(input.content, fileName);
  } catch (err) {
    if (err instanceof SourceError) throw invalid(err.message);
    throw err;
  }
  if (!type) throw invalid(UNSUPPORTED_FILE_TYPE);

  // One statement with its nested upload: the entry never exists without its file.
  const entry = await deps.db.textEntry.create({
    data: {
      chatbotId: chatbot.id,
      title: fileName,
      content: '',
      sourceType: SOURCE_TYPE.file,
      sourceName: fileName,
      status: ENTRY_STATUS.processing,
      upload: { create: { content: new Uint8Array(input.content) } },
    },
  });
  await queueFirstJob(deps, entry, INGEST_KIND.file);
  return entry;
}

/** Queues the job that makes a new entry ready; a failure is logged and left to the relay. */
export async function queueFirstJob(
  deps: EntryJobDeps,
  entry: TextEntry,
  kind: 'file' | 'url',
  opts: { crawl?: boolean; maxPages?: number } = {},
): Promise<void> {
  try {
    await deps.publishIngest({ chatbotId: entry.chatbotId, entryId: entry.id, kind, ...opts }, ingestJobId.first(kind, entry.id));
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, entryId: entry.id }, 'could not queue a knowledge entry; the relay will');
  }
}
