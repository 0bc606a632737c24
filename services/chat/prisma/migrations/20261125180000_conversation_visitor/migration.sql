-- What the host page told the widget about its visitor (issue 14), kept with the conversation.

-- AlterTable
ALTER TABLE "Conversation"
    ADD COLUMN "visitorId" TEXT,
    ADD COLUMN "visitorName" TEXT;
