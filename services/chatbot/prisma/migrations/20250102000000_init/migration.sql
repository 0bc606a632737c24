-- CreateTable
CREATE TABLE "Chatbot" (
    "id" UUID NOT NULL,
    "uniqueId" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "profilePicture" TEXT,
    "isActive" BOOLEAN NOT NULL DEFAULT true,
    "language" TEXT NOT NULL DEFAULT 'english',
    "interactions" INTEGER NOT NULL DEFAULT 0,
    "lastInteraction" TIMESTAMPTZ(3),
    "knowledgeChars" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Chatbot_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KnowledgeEntry" (
    "id" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KnowledgeEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KnowledgeChunk" (
    "id" UUID NOT NULL,
    "entryId" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "searchConfig" TEXT NOT NULL,
    "searchVector" tsvector,

    CONSTRAINT "KnowledgeChunk_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Chatbot_uniqueId_key" ON "Chatbot"("uniqueId");

-- CreateIndex
CREATE INDEX "Chatbot_ownerId_createdAt_idx" ON "Chatbot"("ownerId", "createdAt");

-- CreateIndex
CREATE INDEX "KnowledgeEntry_chatbotId_createdAt_idx" ON "KnowledgeEntry"("chatbotId", "createdAt");

-- CreateIndex
CREATE INDEX "KnowledgeChunk_entryId_idx" ON "KnowledgeChunk"("entryId");

-- AddForeignKey
ALTER TABLE "KnowledgeEntry" ADD CONSTRAINT "KnowledgeEntry_chatbotId_fkey" FOREIGN KEY ("chatbotId") REFERENCES "Chatbot"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "KnowledgeChunk" ADD CONSTRAINT "KnowledgeChunk_entryId_fkey" FOREIGN KEY ("entryId") REFERENCES "KnowledgeEntry"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Full-text search (not expressible in schema.prisma).
-- btree_gin lets one GIN index hold both the chatbot filter and the lexemes, so a search for a
-- common word in a small chatbot does not wade through a large chatbot's matches. Extensions are
-- per database: the lock keeps several schemas migrating at once (parallel test files, replicas)
-- from racing on CREATE EXTENSION.
SELECT pg_advisory_xact_lock(hashtext('parley-extension:btree_gin'));
CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public;

-- CreateIndex
CREATE INDEX "KnowledgeChunk_chatbotId_searchVector_idx" ON "KnowledgeChunk" USING GIN ("chatbotId", "searchVector");
