-- Usage metering: model prices and one usage record per answered message.
-- Money stays NUMERIC(20,10) like the balance and the ledger: prices keep at most 4 decimals, so
-- tokens × price × 0.000001 has at most 10 decimals and every cost is stored exactly.

-- CreateTable
CREATE TABLE "ModelPrice" (
    "modelId" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "inputPricePerMillion" DECIMAL(10,4) NOT NULL,
    "outputPricePerMillion" DECIMAL(10,4) NOT NULL,

    CONSTRAINT "ModelPrice_pkey" PRIMARY KEY ("modelId")
);

-- CreateTable
CREATE TABLE "UsageRecord" (
    "id" UUID NOT NULL,
    "requestId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "chatbotId" TEXT NOT NULL,
    "chatbotName" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "promptTokens" INTEGER NOT NULL,
    "completionTokens" INTEGER NOT NULL,
    "totalTokens" INTEGER NOT NULL,
    "promptCost" DECIMAL(20,10) NOT NULL,
    "completionCost" DECIMAL(20,10) NOT NULL,
    "totalCost" DECIMAL(20,10) NOT NULL,
    "occurredAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UsageRecord_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "UsageRecord_requestId_key" ON "UsageRecord"("requestId");

-- CreateIndex
CREATE INDEX "UsageRecord_userId_occurredAt_idx" ON "UsageRecord"("userId", "occurredAt");

-- CreateIndex
CREATE INDEX "UsageRecord_userId_chatbotId_occurredAt_idx" ON "UsageRecord"("userId", "chatbotId", "occurredAt");

-- AddForeignKey
ALTER TABLE "UsageRecord" ADD CONSTRAINT "UsageRecord_userId_fkey" FOREIGN KEY ("userId") REFERENCES "Account"("userId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Seed: the model the chat service uses by default.
INSERT INTO "ModelPrice" ("modelId", "displayName", "inputPricePerMillion", "outputPricePerMillion")
VALUES ('gpt-4o-mini', 'GPT-4o mini', 0.15, 0.60);
