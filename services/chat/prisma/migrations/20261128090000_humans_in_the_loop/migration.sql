-- Humans in the loop (docs/adr/0034-humans-in-the-loop.md): who answers a conversation, the
-- members' replies and internal notes, and the leads visitors leave in the chat.

-- AlterEnum
ALTER TYPE "MessageRole" ADD VALUE 'agent';
ALTER TYPE "MessageRole" ADD VALUE 'note';

-- CreateEnum
CREATE TYPE "HandoffStatus" AS ENUM ('bot', 'waiting', 'human', 'closed');

-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN "handoffStatus" "HandoffStatus" NOT NULL DEFAULT 'bot',
ADD COLUMN "handoffRequestedAt" TIMESTAMPTZ(3),
ADD COLUMN "assigneeId" TEXT,
ADD COLUMN "assigneeName" TEXT,
ADD COLUMN "notifiedAt" TIMESTAMPTZ(3),
ADD COLUMN "summary" TEXT,
ADD COLUMN "summaryMessageCount" INTEGER;

-- AlterTable
ALTER TABLE "Message" ADD COLUMN "authorId" TEXT,
ADD COLUMN "authorName" TEXT,
ADD COLUMN "clientMessageId" TEXT;

-- CreateTable
CREATE TABLE "Lead" (
    "id" UUID NOT NULL,
    "conversationId" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "ownerId" TEXT NOT NULL,
    "name" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "consented" BOOLEAN NOT NULL DEFAULT false,
    "consentText" TEXT,
    "source" TEXT NOT NULL DEFAULT 'form',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Lead_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Conversation_ownerId_handoffStatus_idx" ON "Conversation"("ownerId", "handoffStatus");

-- CreateIndex
CREATE UNIQUE INDEX "Message_conversationId_clientMessageId_key" ON "Message"("conversationId", "clientMessageId");

-- CreateIndex
CREATE UNIQUE INDEX "Lead_conversationId_key" ON "Lead"("conversationId");

-- CreateIndex
CREATE INDEX "Lead_ownerId_createdAt_id_idx" ON "Lead"("ownerId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Lead_chatbotId_createdAt_id_idx" ON "Lead"("chatbotId", "createdAt", "id");

-- AddForeignKey
ALTER TABLE "Lead" ADD CONSTRAINT "Lead_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
