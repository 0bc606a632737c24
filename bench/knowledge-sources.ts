// Knowledge sources benchmark (a script that prints figures, not a test): how long a 100-page PDF
// and a 50-page website take from the owner's call to every entry ready, through the chatbot
// service's real use cases, its real BullMQ ingest queue and worker (parsing in worker threads,
// fetching over HTTP), and real PostgreSQL. The site is served locally by the same test site the
// chatbot service's tests use (so private addresses are allowed for this run only).
//
//   npm run bench knowledge-sources      (or: node bench/knowledge-sources.ts)
//
// DATABASE_URL defaults to postgresql://postgres@127.0.0.1:5432/parley_bench; a fresh schema is
// created and dropped at the end. BENCH_ROUNDS (default 3) repeats each measurement.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import pg from 'pg';
import { createLogger } from '../services/common/src/logger.ts';
import { ensureDatabase, migrate } from '../services/common/src/migrations.ts';
import { readChatbotConfig } from '../services/chatbot/src/config.ts';
import { createChatbot } from '../services/chatbot/src/chatbots/create-chatbot.ts';
import { ownerChanges } from '../services/chatbot/src/owner-changes.ts';
import { createChatbotService, MIGRATIONS_DIR } from '../services/chatbot/src/service.ts';
import { generatedSite, startTestSite } from '../services/chatbot/src/knowledge/sources/__tests__/test-site.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/parley_bench';
const rounds = Number(process.env.BENCH_ROUNDS ?? '3');
const PDF_PAGES = 100;
const SITE_PAGES = 50;
// From the product issue, on the 2-core machine.
const TARGET_PDF_S = 10;
const TARGET_SITE_S = 20;

const load = () => loadavg()[0].toFixed(1);

/** A 100-page manual: each page a heading and about 1,800 characters of sentences. */
async function manualPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle('Bench manual');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage();
    page.drawText(`Chapter ${p}`, { x: 50, y: 780, size: 16, font });
    for (let line = 0; line < 40; line++) {
      const text = `Section ${p}.${line}: the model ${p * 40 + line} keeps its setting ${line % 7} after a restart.`;
      page.drawText(text, { x: 50, y: 750 - line * 17, size: 10, font });
    }
  }
  return doc.save();
}

const schema = `bench_sources_${randomBytes(4).toString('hex')}`;
await ensureDatabase(databaseUrl);
await migrate({ databaseUrl, schema, migrationsDir: MIGRATIONS_DIR });
const config = readChatbotConfig({
  ...process.env,
  DATABASE_URL: databaseUrl,
  CHATBOT_DB_SCHEMA: schema,
  QUEUE_PREFIX: schema,
  KNOWLEDGE_URL_ALLOW_PRIVATE: '1',
  LOG_LEVEL: 'warn',
});
const logger = createLogger('bench', 'warn');
// No billing service: chatbots are created through the use case with a pro owner, as bench/retrieval.ts does.
const parts = await createChatbotService(config, { logger, billing: {} as never });
const { prisma: db, deps } = parts;
const changes = ownerChanges(deps);
const proOwner = async () => 'pro' as const;
const site = await startTestSite(generatedSite(SITE_PAGES, { sitemap: true }));
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();

/** Polls until the chatbot has `count` entries, none processing; the time from `start`. */
async function readyAfter(chatbotId: string, count: number, start: number): Promise<{ seconds: number; failed: number }> {
  for (;;) {
    const rows = await db.textEntry.groupBy({ by: ['status'], where: { chatbotId }, _count: true });
    const by = Object.fromEntries(rows.map((r) => [r.status, r._count]));
    const total = rows.reduce((n, r) => n + r._count, 0);
    if (total >= count && !by.processing) return { seconds: (performance.now() - start) / 1000, failed: by.failed ?? 0 };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

try {
  const pdf = await manualPdf(PDF_PAGES);
  console.log(`# knowledge sources — ${PDF_PAGES}-page PDF (${(pdf.byteLength / 1024).toFixed(0)} KB), ${SITE_PAGES}-page local site`);
  for (let round = 1; round <= rounds; round++) {
    const bot = await createChatbot({ db, ownerPlan: proOwner }, { ownerId: `bench-${round}`, name: `Bench ${round}` });
    const pdfStart = performance.now();
    await changes.addFileEntry({ ownerId: bot.ownerId, chatbotId: bot.id, fileName: 'manual.pdf', content: pdf });
    const file = await readyAfter(bot.id, 1, pdfStart);
    const { rows } = await admin.query<{ chunks: number; chars: number }>(
      `SELECT count(*)::int AS chunks, (SELECT "knowledgeChars" FROM "${schema}"."Chatbot" WHERE id = $1) AS chars
         FROM "${schema}"."KnowledgeChunk" WHERE "chatbotId" = $1`,
      [bot.id],
    );
    console.log(
      `round ${round}: PDF ready in ${file.seconds.toFixed(2)} s (${rows[0].chars.toLocaleString('en-US')} characters, ` +
        `${rows[0].chunks} chunks, ${file.failed} failed; target ≤ ${TARGET_PDF_S} s; load ${load()})`,
    );

    const siteStart = performance.now();
    await changes.addUrlEntry({ ownerId: bot.ownerId, chatbotId: bot.id, url: `${site.origin}/`, crawl: true, maxPages: SITE_PAGES });
    const crawl = await readyAfter(bot.id, 1 + SITE_PAGES, siteStart);
    console.log(
      `round ${round}: ${SITE_PAGES}-page site crawled and ready in ${crawl.seconds.toFixed(2)} s ` +
        `(${crawl.failed} failed; target ≤ ${TARGET_SITE_S} s; load ${load()})`,
    );
  }
} finally {
  await site.close();
  for (const close of parts.closers) await close();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
