-- Each ChatbotInteraction event is counted once: its request id is recorded in the same
-- transaction that increments the chatbot's interactions.

-- CreateTable
CREATE TABLE "ProcessedInteraction" (
    "requestId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProcessedInteraction_pkey" PRIMARY KEY ("requestId")
);
