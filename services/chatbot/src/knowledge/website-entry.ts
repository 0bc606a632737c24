// The owner's controls of a website entry: fetch it again now, and the scheduled re-sync on or off.
// A refresh leaves the entry as it is (ready entries keep answering from their content) and queues
// the fetch; the entry then tells when it was fetched and whether its content changed.
import { conflict, invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient, TextEntry } from '../generated/prisma/client.ts';
import { isUuid } from '@parley/common/ids.ts';
import { findOwnedChatbot, type OwnedChatbotRef } from '../core/owned-chatbot.ts';
import type { EntryJobDeps } from './add-file-entry.ts';
import { ENTRY_NOT_FOUND } from './delete-text-entry.ts';
import { INGEST_KIND, ingestJobId } from './ingest/ingest-requests.ts';
import { ENTRY_STATUS, SOURCE_TYPE } from './knowledge-base.ts';

export const ONLY_WEBSITE_ENTRIES = 'Only website entries can be refreshed';
export const ENTRY_PROCESSING = 'This entry is still being processed';

export type EntryRef = OwnedChatbotRef & { entryId: string };

/** The owner's website entry, or the error the owner sees. */
async function findWebsiteEntry(db: PrismaClient, input: EntryRef): Promise<TextEntry> {
  const chatbot = await findOwnedChatbot(db, input);
  if (!isUuid(input.entryId)) throw notFound(ENTRY_NOT_FOUND);
  const entry = await db.textEntry.findFirst({ where: { id: input.entryId.trim().toLowerCase(), chatbotId: chatbot.id } });
  if (!entry) throw notFound(ENTRY_NOT_FOUND);
  if (entry.sourceType !== SOURCE_TYPE.url) throw invalid(ONLY_WEBSITE_ENTRIES);
  return entry;
}

/** Queues a fetch of the entry (a failed one is tried again); answers the entry as it is. */
export async function refreshEntry(deps: EntryJobDeps, input: EntryRef): Promise<TextEntry> {
  const entry = await findWebsiteEntry(deps.db, input);
  if (entry.status === ENTRY_STATUS.processing) throw conflict(ENTRY_PROCESSING);
  // Unlike a new entry's, this job has no relay: a failure is the owner's to retry, so it is answered.
  await deps.publishIngest({ chatbotId: entry.chatbotId, entryId: entry.id, kind: INGEST_KIND.refresh }, ingestJobId.refresh(entry.id));
  return entry;
}

export async function setEntryAutoSync(db: PrismaClient, input: EntryRef & { autoSync: boolean }): Promise<TextEntry> {
  const entry = await findWebsiteEntry(db, input);
  return db.textEntry.update({ where: { id: entry.id }, data: { autoSync: input.autoSync } });
}
