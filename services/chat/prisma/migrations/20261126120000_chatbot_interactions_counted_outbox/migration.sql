-- The analytics worker counts each chatbot's answered messages for the chatbot service too (ADR 23):
-- one record per chatbot of a batch, written in the batch's transaction and removed once its
-- ChatbotInteractionsCounted event is in the queue (see src/analytics/chatbot-interactions-counted.outbox.ts).

-- CreateTable
CREATE TABLE "ChatbotInteractionsCountedOutbox" (
    "id" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "count" INTEGER NOT NULL,
    "lastInteractionAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChatbotInteractionsCountedOutbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ChatbotInteractionsCountedOutbox_createdAt_idx" ON "ChatbotInteractionsCountedOutbox"("createdAt");
