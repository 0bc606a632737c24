// Files and web pages becoming knowledge, through the real RPCs, the real knowledge-ingest queue and
// worker, real PostgreSQL and a real website on 127.0.0.1 (helper B's test site): an upload is
// answered at once as processing and becomes ready (searchable) or failed with the owner's message;
// a redelivered job changes nothing; the knowledge cap holds; a crawl adds the site's pages; a
// refresh records whether the page changed; the re-sync schedule and the relay queue work once.
import { readFileSync } from 'node:fs';
import type { TextEntry } from '../../../generated/prisma/client.ts';
import { Queue } from 'bullmq';
import { Code } from '@connectrpc/connect';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES, safeJobId } from '@parley/common/queues.ts';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { expectRpcError, logger, newOwner, startChatbotService, type TestChatbotService } from '../../../../test/integration/harness.ts';
import { knowledgeBaseFull } from '../../add-text-entry.ts';
import { FILE_REQUIRED, FILE_TOO_LARGE, UNSUPPORTED_FILE_TYPE } from '../../add-file-entry.ts';
import { ENTRY_PROCESSING, ONLY_WEBSITE_ENTRIES } from '../../website-entry.ts';
import { FILE_ERRORS } from '../../sources/source-error.ts';
import {
  generatedSite,
  generatedSitePages,
  htmlPage,
  sampleSite,
  startTestSite,
  type TestSite,
} from '../../sources/__tests__/test-site.ts';
import { queueDueSyncs } from '../auto-sync.ts';
import { ingestEntry } from '../ingest-entry.ts';
import { relayProcessingEntries } from '../ingest-relay.ts';
import { ingestJobId, ingestProducer } from '../ingest-requests.ts';

const MAX_KNOWLEDGE = 6000;
let svc: TestChatbotService;
let site: TestSite;
let crawlSite: TestSite;
/** What /changing answers now (a refresh test changes it). */
let changing: { status: number; paragraph: string } = { status: 200, paragraph: 'The shop opens at nine in the morning, every weekday.' };

beforeAll(async () => {
  svc = await startChatbotService({
    KNOWLEDGE_URL_ALLOW_PRIVATE: '1',
    MAX_KNOWLEDGE_CHARS_PER_BOT: String(MAX_KNOWLEDGE),
    MAX_UPLOAD_BYTES: '300000',
  });
  site = await startTestSite((origin) => ({
    ...sampleSite()(origin),
    '/changing': {
      handle: (_req, res) => {
        res.writeHead(changing.status, { 'content-type': 'text/html; charset=utf-8' });
        res.end(htmlPage({ title: 'Opening hours', paragraphs: [changing.paragraph] }));
      },
    },
  }));
  crawlSite = await startTestSite(generatedSite(5));
});

afterAll(async () => {
  await site?.close();
  await crawlSite?.close();
  await svc?.stop();
});

async function pdf(lines: string[], title?: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (title) doc.setTitle(title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage();
  lines.forEach((line, i) => page.drawText(line, { x: 50, y: 750 - i * 16, size: 11, font }));
  return doc.save();
}

const utf8 = (text: string) => new TextEncoder().encode(text);

/** The entry once no longer processing (or, with `until`, once it says so). */
async function settled(entryId: string, until = (e: TextEntry) => e.status !== 'processing', timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entry = await svc.db.textEntry.findUniqueOrThrow({ where: { id: entryId } });
    if (until(entry)) return entry;
    if (Date.now() > deadline) throw new Error(`entry ${entryId} still ${entry.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function ownBot() {
  const owner = newOwner('ingest');
  const bot = await svc.createChatbot(owner);
  return { owner, bot, ref: { ownerId: owner, chatbotId: bot.id } };
}

const chars = async (chatbotId: string) => (await svc.db.chatbot.findUniqueOrThrow({ where: { id: chatbotId } })).knowledgeChars;
const revision = (chatbotId: string) => svc.redis.get(redisKeys(svc.config.QUEUE_PREFIX).chatbotRevision(chatbotId));

describe('AddFileEntry', () => {
  it('answers the entry as processing at once; the job makes it ready, searchable and counted', async () => {
    const { bot, ref } = await ownBot();
    const content = await pdf(['Our refund policy: refunds within 30 days of purchase.', 'Shipping takes three days.'], 'Store policies');
    const { entry, knowledgeBase } = await svc.client.addFileEntry({ ...ref, fileName: 'C:\\Users\\me\\policies\u0007.pdf', content });
    expect(entry).toMatchObject({
      status: 'processing',
      title: 'policies.pdf',
      content: '',
      source: { type: 'file', name: 'policies.pdf' },
    });
    expect(knowledgeBase!.textEntries.map((e) => e.id)).toEqual([entry!.id]);
    expect(knowledgeBase!.text).toBe('');

    const ready = await settled(entry!.id);
    expect(ready).toMatchObject({ status: 'ready', error: null, title: 'Store policies', sourceName: 'policies.pdf' });
    expect(ready.content).toContain('refunds within 30 days');
    expect(await chars(bot.id)).toBe([...ready.content].length);
    expect(await svc.db.knowledgeUpload.count({ where: { entryId: entry!.id } })).toBe(0);
    expect(await revision(bot.id)).toBeTruthy();
    const { chunks } = await svc.client.retrieve({ chatbotId: bot.id, query: 'refund policy' });
    expect(chunks.map((c) => c.entryId)).toEqual([entry!.id]);
    const { chatbot } = await svc.client.getChatbot(ref);
    expect(chatbot!.knowledgeBase!.text).toBe(ready.content);
  });

  it('marks a file that cannot be read as failed with the reason, counting nothing', async () => {
    const { bot, ref } = await ownBot();
    const content = new Uint8Array(readFileSync(new URL('../../sources/__tests__/fixtures/password-protected.pdf', import.meta.url)));
    const { entry } = await svc.client.addFileEntry({ ...ref, fileName: 'secret.pdf', content });
    const failed = await settled(entry!.id);
    expect(failed).toMatchObject({ status: 'failed', error: FILE_ERRORS.passwordProtected, content: '' });
    expect(await chars(bot.id)).toBe(0);
    expect(await svc.db.knowledgeChunk.count({ where: { entryId: entry!.id } })).toBe(0);
    const { chatbot } = await svc.client.getChatbot(ref);
    expect(chatbot!.knowledgeBase!.textEntries[0]).toMatchObject({ status: 'failed', error: FILE_ERRORS.passwordProtected });
  });

  it('refuses an empty, too large or unsupported file without creating an entry', async () => {
    const { bot, ref } = await ownBot();
    await expectRpcError(
      svc.client.addFileEntry({ ...ref, fileName: 'a.txt', content: new Uint8Array() }),
      Code.InvalidArgument,
      FILE_REQUIRED,
    );
    await expectRpcError(
      svc.client.addFileEntry({ ...ref, fileName: 'a.txt', content: utf8('a '.repeat(150_001)) }),
      Code.InvalidArgument,
      FILE_TOO_LARGE,
    );
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
    await expectRpcError(
      svc.client.addFileEntry({ ...ref, fileName: 'notes.txt', content: png }),
      Code.InvalidArgument,
      UNSUPPORTED_FILE_TYPE,
    );
    expect(await svc.db.textEntry.count({ where: { chatbotId: bot.id } })).toBe(0);
  });

  it('fails a file that would take the chatbot past its knowledge cap, and keeps what is there', async () => {
    const { bot, ref } = await ownBot();
    await svc.client.addTextEntry({ ...ref, text: 'x'.repeat(MAX_KNOWLEDGE - 100) });
    const { entry } = await svc.client.addFileEntry({ ...ref, fileName: 'long.txt', content: utf8('Long words here. '.repeat(20)) });
    expect(await settled(entry!.id)).toMatchObject({ status: 'failed', error: knowledgeBaseFull(MAX_KNOWLEDGE) });
    expect(await chars(bot.id)).toBe(MAX_KNOWLEDGE - 100);
    expect(await svc.db.knowledgeChunk.count({ where: { entryId: entry!.id } })).toBe(0);
  });

  it('counts a redelivered or concurrent job once', async () => {
    const { bot } = await ownBot();
    // An entry waiting for a job that was never published: two deliveries race, then a third comes late.
    const entry = await svc.db.textEntry.create({
      data: {
        chatbotId: bot.id,
        title: 'faq.md',
        content: '',
        sourceType: 'file',
        sourceName: 'faq.md',
        status: 'processing',
        upload: { create: { content: utf8('# FAQ\n\nWe deliver to every country in Europe within a week.\n') } },
      },
    });
    const request = { chatbotId: bot.id, entryId: entry.id, kind: 'file' as const };
    const outcomes = await Promise.all([1, 2].map(() => ingestEntry(svc.parts.ingestDeps, request, { lastAttempt: false })));
    expect(outcomes.sort()).toEqual(['ready', 'skipped']);
    const ready = await svc.db.textEntry.findUniqueOrThrow({ where: { id: entry.id } });
    expect(await chars(bot.id)).toBe([...ready.content].length);
    expect(await ingestEntry(svc.parts.ingestDeps, request, { lastAttempt: true })).toBe('skipped');
    expect(await chars(bot.id)).toBe([...ready.content].length);
    const chunks = await svc.db.knowledgeChunk.count({ where: { entryId: entry.id } });
    expect(chunks).toBe(1);
  });
});

describe('AddUrlEntry', () => {
  it('fetches one page into a ready entry with its title and address', async () => {
    const { bot, ref } = await ownBot();
    const { entry } = await svc.client.addUrlEntry({ ...ref, url: `${site.origin}/r1` });
    expect(entry).toMatchObject({ status: 'processing', source: { type: 'url', url: `${site.origin}/r1` } });
    const ready = await settled(entry!.id);
    expect(ready).toMatchObject({ status: 'ready', sourceUrl: `${site.origin}/about`, autoSync: false });
    expect(ready.title).toContain('About us');
    expect(ready.content).toContain('founded in 2019 in Utrecht');
    expect(ready.lastSyncedAt).toBeInstanceOf(Date);
    expect(await chars(bot.id)).toBe([...ready.content].length);
  });

  it('fails a page that cannot be fetched with the reason, and refuses a bad address or maxPages', async () => {
    const { ref } = await ownBot();
    const { entry } = await svc.client.addUrlEntry({ ...ref, url: `${site.origin}/nowhere` });
    expect(await settled(entry!.id)).toMatchObject({ status: 'failed', error: 'The page could not be fetched (HTTP 404)' });
    await expectRpcError(
      svc.client.addUrlEntry({ ...ref, url: 'ftp://example.com/' }),
      Code.InvalidArgument,
      'Enter a valid http or https address',
    );
    await expectRpcError(
      svc.client.addUrlEntry({ ...ref, url: site.origin, crawl: true, maxPages: 101 }),
      Code.InvalidArgument,
      'maxPages must be between 1 and 100',
    );
  });

  it("with crawl, adds the site's other pages as entries of their own, each fetched once", async () => {
    const { bot, ref } = await ownBot();
    const { entry } = await svc.client.addUrlEntry({ ...ref, url: `${crawlSite.origin}/`, crawl: true, maxPages: 5 });
    await settled(entry!.id);
    const deadline = Date.now() + 20_000;
    let entries = await svc.db.textEntry.findMany({ where: { chatbotId: bot.id } });
    while ((entries.length < 5 || entries.some((e) => e.status === 'processing')) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      entries = await svc.db.textEntry.findMany({ where: { chatbotId: bot.id } });
    }
    expect(entries.map((e) => e.sourceUrl).sort()).toEqual(generatedSitePages(crawlSite.origin, 5).sort());
    expect(entries.every((e) => e.status === 'ready')).toBe(true);
    const { chunks } = await svc.client.retrieve({ chatbotId: bot.id, query: 'Widget 3 weighs grams' });
    expect(entries.find((e) => e.id === chunks[0].entryId)!.sourceUrl).toBe(`${crawlSite.origin}/page/3`);
    expect(await chars(bot.id)).toBe(entries.reduce((n, e) => n + [...e.content].length, 0));
  });
});

describe('RefreshEntry and SetEntryAutoSync', () => {
  it('records an unchanged page, replaces a changed one, and keeps the old text when a fetch fails', async () => {
    changing = { status: 200, paragraph: 'The shop opens at nine in the morning, every weekday.' };
    const { bot, ref } = await ownBot();
    const { entry } = await svc.client.addUrlEntry({ ...ref, url: `${site.origin}/changing` });
    const first = await settled(entry!.id);

    const { entry: answered } = await svc.client.refreshEntry({ ...ref, entryId: first.id });
    expect(answered).toMatchObject({ status: 'ready' });
    const unchanged = await settled(first.id, (e) => e.lastSyncChanged !== null);
    expect(unchanged).toMatchObject({ lastSyncChanged: false, content: first.content });

    changing = { status: 200, paragraph: 'From December the shop opens at ten in the morning, and stays open late on Fridays until nine.' };
    await svc.client.refreshEntry({ ...ref, entryId: first.id });
    const changed = await settled(first.id, (e) => e.lastSyncChanged === true);
    expect(changed.content).toContain('stays open late on Fridays');
    expect(await chars(bot.id)).toBe([...changed.content].length);
    const { chunks } = await svc.client.retrieve({ chatbotId: bot.id, query: 'Fridays late' });
    expect(chunks).toHaveLength(1);
    expect(await svc.db.knowledgeChunk.count({ where: { entryId: first.id } })).toBe(1);

    changing = { status: 500, paragraph: '' };
    await svc.client.refreshEntry({ ...ref, entryId: first.id });
    const kept = await settled(first.id, (e) => e.error !== null);
    expect(kept).toMatchObject({ status: 'ready', content: changed.content, error: 'The page could not be fetched (HTTP 500)' });

    changing = { status: 200, paragraph: 'From December the shop opens at ten in the morning, and stays open late on Fridays until nine.' };
    await svc.client.refreshEntry({ ...ref, entryId: first.id });
    expect(await settled(first.id, (e) => e.error === null)).toMatchObject({ lastSyncChanged: false });
  });

  it('only refreshes website entries, and not while they are processing; auto-sync is for website entries too', async () => {
    const { ref } = await ownBot();
    const { knowledgeBase } = await svc.client.addTextEntry({ ...ref, text: 'Typed.' });
    const typed = knowledgeBase!.textEntries[0].id;
    await expectRpcError(svc.client.refreshEntry({ ...ref, entryId: typed }), Code.InvalidArgument, ONLY_WEBSITE_ENTRIES);
    await expectRpcError(
      svc.client.setEntryAutoSync({ ...ref, entryId: typed, autoSync: true }),
      Code.InvalidArgument,
      ONLY_WEBSITE_ENTRIES,
    );
    const { entry } = await svc.client.addUrlEntry({ ...ref, url: `${site.origin}/slow` });
    await expectRpcError(svc.client.refreshEntry({ ...ref, entryId: entry!.id }), Code.Aborted, ENTRY_PROCESSING);
    const { entry: synced } = await svc.client.setEntryAutoSync({ ...ref, entryId: entry!.id, autoSync: true });
    expect(synced!.autoSync).toBe(true);
  });

  it('queues one re-sync per due entry and interval, however often and wherever the schedule runs', async () => {
    const { ref } = await ownBot();
    const { entry } = await svc.client.addUrlEntry({ ...ref, url: `${site.origin}/pricing` });
    await settled(entry!.id);
    await svc.client.setEntryAutoSync({ ...ref, entryId: entry!.id, autoSync: true });
    const intervalMs = svc.config.KNOWLEDGE_SYNC_INTERVAL_MS;
    await svc.db.textEntry.update({ where: { id: entry!.id }, data: { lastSyncedAt: new Date(Date.now() - intervalMs - 1000) } });

    const producer = ingestProducer(svc.redis, svc.config.QUEUE_PREFIX);
    const queue = new Queue(QUEUES.knowledgeIngest, { connection: svc.redis, prefix: svc.config.QUEUE_PREFIX });
    try {
      const now = Date.now();
      const sweep = () => queueDueSyncs({ db: svc.db, logger, publishIngest: producer.publish, intervalMs }, now);
      // The queue paused while the sweeps run, so that none of them sees the entry already re-synced
      // by the job another one queued: each finds it due.
      await queue.pause();
      const queued = await Promise.all([sweep(), sweep(), sweep()]);
      expect(queued.every((n) => n >= 1)).toBe(true);
      await queue.resume();
      const jobs = await queue.getJobs(['waiting', 'active', 'completed', 'delayed', 'failed']);
      expect(jobs.filter((j) => j.id === safeJobId(ingestJobId.sync(entry!.id, intervalMs, now)))).toHaveLength(1);
      const synced = await settled(entry!.id, (e) => e.lastSyncChanged !== null);
      expect(synced.lastSyncedAt!.getTime()).toBeGreaterThan(now - 1000);
      // Fetched now: not due again until the next interval.
      expect((await svc.db.textEntry.findMany({ where: { id: entry!.id, lastSyncedAt: { lt: new Date(now - intervalMs) } } })).length).toBe(
        0,
      );
    } finally {
      await queue.close();
      await producer.close();
    }
  });
});

describe('the ingest relay', () => {
  it('queues a processing entry whose job was never published, once', async () => {
    const { bot } = await ownBot();
    const entry = await svc.db.textEntry.create({
      data: { chatbotId: bot.id, title: 'x', content: '', sourceType: 'url', sourceUrl: `${site.origin}/pricing`, status: 'processing' },
    });
    await svc.db.textEntry.update({ where: { id: entry.id }, data: { updatedAt: new Date(Date.now() - 120_000) } });
    const producer = ingestProducer(svc.redis, svc.config.QUEUE_PREFIX);
    try {
      const deps = { db: svc.db, logger, publishIngest: producer.publish, jobState: producer.jobState };
      const olderThan = new Date(Date.now() - 60_000);
      const first = await relayProcessingEntries(deps, olderThan);
      expect(first.published).toBeGreaterThanOrEqual(1);
      expect(await settled(entry.id)).toMatchObject({ status: 'ready' });
      expect(await relayProcessingEntries(deps, olderThan)).toEqual({ published: 0, failed: 0 });
    } finally {
      await producer.close();
    }
  });
});
