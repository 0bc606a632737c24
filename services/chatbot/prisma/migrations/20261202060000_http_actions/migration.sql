-- HTTP actions (docs/adr/0045-http-actions.md): the actions an owner declares per chatbot, and one
-- row per run of one (a visitor's tool call or the owner's Test) for the owner's log.

-- AlterTable
ALTER TABLE "Chatbot" ADD COLUMN "actionCount" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "ChatbotAction" (
    "id" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "whenToUse" TEXT NOT NULL,
    "inputs" JSONB NOT NULL,
    "method" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "query" JSONB NOT NULL,
    "headers" JSONB NOT NULL,
    "body" TEXT NOT NULL DEFAULT '',
    "secrets" TEXT NOT NULL DEFAULT '',
    "secretHints" JSONB NOT NULL,
    "responseFields" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "timeoutMs" INTEGER NOT NULL DEFAULT 10000,
    "maxResponseBytes" INTEGER NOT NULL DEFAULT 262144,
    "confirm" BOOLEAN NOT NULL,
    "identifiedOnly" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ChatbotAction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ActionCall" (
    "id" UUID NOT NULL,
    "actionId" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "sessionId" TEXT NOT NULL DEFAULT '',
    "source" TEXT NOT NULL,
    "callKey" TEXT,
    "inputs" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "error" TEXT NOT NULL DEFAULT '',
    "httpStatus" INTEGER NOT NULL DEFAULT 0,
    "durationMs" INTEGER NOT NULL DEFAULT 0,
    "fieldsRead" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "result" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ActionCall_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ChatbotAction_chatbotId_name_key" ON "ChatbotAction"("chatbotId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "ActionCall_callKey_key" ON "ActionCall"("callKey");

-- CreateIndex
CREATE INDEX "ActionCall_actionId_createdAt_idx" ON "ActionCall"("actionId", "createdAt");

-- CreateIndex
CREATE INDEX "ActionCall_chatbotId_sessionId_idx" ON "ActionCall"("chatbotId", "sessionId");

-- AddForeignKey
ALTER TABLE "ChatbotAction" ADD CONSTRAINT "ChatbotAction_chatbotId_fkey" FOREIGN KEY ("chatbotId") REFERENCES "Chatbot"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ActionCall" ADD CONSTRAINT "ActionCall_actionId_fkey" FOREIGN KEY ("actionId") REFERENCES "ChatbotAction"("id") ON DELETE CASCADE ON UPDATE CASCADE;
