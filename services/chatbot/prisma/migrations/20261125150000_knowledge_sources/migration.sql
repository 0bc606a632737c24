-- Knowledge from files, websites and Q&A pairs (issue 13), and each chatbot's own voice.
-- Existing entries are typed text, ready, as they always were.

-- AlterTable
ALTER TABLE "Chatbot"
    ADD COLUMN "qaPairs" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "instructions" TEXT NOT NULL DEFAULT '',
    ADD COLUMN "temperature" DOUBLE PRECISION,
    ADD COLUMN "welcomeMessage" TEXT NOT NULL DEFAULT '',
    ADD COLUMN "suggestedQuestions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    ADD COLUMN "noAnswerMessage" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "KnowledgeEntry"
    ADD COLUMN "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    ADD COLUMN "sourceType" TEXT NOT NULL DEFAULT 'text',
    ADD COLUMN "sourceName" TEXT,
    ADD COLUMN "sourceUrl" TEXT,
    ADD COLUMN "status" TEXT NOT NULL DEFAULT 'ready',
    ADD COLUMN "error" TEXT,
    ADD COLUMN "question" TEXT,
    ADD COLUMN "contentHash" TEXT,
    ADD COLUMN "autoSync" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "lastSyncedAt" TIMESTAMPTZ(3),
    ADD COLUMN "lastSyncChanged" BOOLEAN;

-- AlterTable
ALTER TABLE "KnowledgeChunk"
    ADD COLUMN "embedding" REAL[],
    ADD COLUMN "embeddingModel" TEXT;

-- CreateTable
CREATE TABLE "KnowledgeUpload" (
    "entryId" UUID NOT NULL,
    "content" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KnowledgeUpload_pkey" PRIMARY KEY ("entryId")
);

-- CreateIndex
CREATE INDEX "KnowledgeEntry_autoSync_lastSyncedAt_idx" ON "KnowledgeEntry"("autoSync", "lastSyncedAt");

-- AddForeignKey
ALTER TABLE "KnowledgeUpload" ADD CONSTRAINT "KnowledgeUpload_entryId_fkey" FOREIGN KEY ("entryId") REFERENCES "KnowledgeEntry"("id") ON DELETE CASCADE ON UPDATE CASCADE;
