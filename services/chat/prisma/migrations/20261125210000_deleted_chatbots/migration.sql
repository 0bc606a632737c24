-- Chatbots whose deletion was applied, so an analytics event still queued for one counts nothing
-- instead of recreating the figures just deleted (issue 15).

-- CreateTable
CREATE TABLE "DeletedChatbot" (
    "chatbotId" UUID NOT NULL,
    "deletedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DeletedChatbot_pkey" PRIMARY KEY ("chatbotId")
);
