-- The quality loop (docs/adr/0050-quality-loop.md): test cases, runs and their results.
CREATE TABLE "TestCase" (
    "id" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "ownerId" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "earlierTurns" JSONB NOT NULL DEFAULT '[]',
    "checks" JSONB NOT NULL,
    "expectedAnswer" TEXT NOT NULL DEFAULT '',
    "source" TEXT NOT NULL DEFAULT 'manual',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "TestCase_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "TestCase_chatbotId_createdAt_idx" ON "TestCase"("chatbotId", "createdAt");

CREATE TABLE "TestRun" (
    "id" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "ownerId" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "uniqueId" TEXT NOT NULL,
    "model" TEXT NOT NULL DEFAULT '',
    "stopReason" TEXT NOT NULL DEFAULT '',
    "totalCases" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMPTZ(3),
    CONSTRAINT "TestRun_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "TestRun_chatbotId_createdAt_idx" ON "TestRun"("chatbotId", "createdAt");
-- At most one run of a chatbot under way: two starts at once, one wins (not in schema.prisma: a partial index).
CREATE UNIQUE INDEX "TestRun_one_under_way" ON "TestRun"("chatbotId") WHERE "status" IN ('queued', 'running');

CREATE TABLE "TestResult" (
    "id" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "caseId" UUID NOT NULL,
    "requestId" TEXT NOT NULL DEFAULT '',
    "question" TEXT NOT NULL,
    "answer" TEXT NOT NULL DEFAULT '',
    "sources" JSONB NOT NULL DEFAULT '[]',
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "cost" DECIMAL(20,10) NOT NULL DEFAULT 0,
    "latencyMs" INTEGER NOT NULL DEFAULT 0,
    "passed" BOOLEAN NOT NULL,
    "checks" JSONB NOT NULL DEFAULT '[]',
    "error" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "TestResult_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "TestResult_runId_caseId_key" ON "TestResult"("runId", "caseId");
ALTER TABLE "TestResult" ADD CONSTRAINT "TestResult_runId_fkey" FOREIGN KEY ("runId") REFERENCES "TestRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
