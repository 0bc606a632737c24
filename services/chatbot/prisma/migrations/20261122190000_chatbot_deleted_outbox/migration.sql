-- A chatbot's deletion is recorded in the statement that deletes it and removed once its
-- ChatbotDeleted event is in the queue (see src/chatbots/chatbot-deleted.outbox.ts).

-- CreateTable
CREATE TABLE "ChatbotDeletedOutbox" (
    "chatbotId" UUID NOT NULL,
    "ownerId" TEXT NOT NULL,
    "deletedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChatbotDeletedOutbox_pkey" PRIMARY KEY ("chatbotId")
);
