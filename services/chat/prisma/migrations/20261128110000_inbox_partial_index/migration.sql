-- The inbox reads only conversations a person has or is asked for (waiting, human). A bot's exchange
-- moves its conversation's row (updatedAt is indexed, so the update is never HOT and writes an entry
-- to every index): a partial index takes no entry for the bot's conversations, so the visitor's path
-- pays nothing for the inbox. Prisma's schema cannot express a partial index; it lives here only.

-- DropIndex
DROP INDEX "Conversation_ownerId_handoffStatus_idx";

-- CreateIndex
CREATE INDEX "Conversation_inbox_idx" ON "Conversation"("ownerId", "handoffStatus") WHERE "handoffStatus" IN ('waiting', 'human');
