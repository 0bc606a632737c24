-- Each chatbot's appearance, where it may run and what its visitors may spend (issue 14).
-- Existing chatbots get the defaults: the product's look, anywhere, the standalone page on,
-- 100 messages per visitor per day and $5.00 per day.

-- AlterTable
ALTER TABLE "Chatbot"
    ADD COLUMN "primaryColor" TEXT NOT NULL DEFAULT '',
    ADD COLUMN "position" TEXT NOT NULL DEFAULT 'right',
    ADD COLUMN "launcherLabel" TEXT NOT NULL DEFAULT '',
    ADD COLUMN "hideBranding" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "allowedDomains" TEXT[] DEFAULT ARRAY[]::TEXT[],
    ADD COLUMN "standalonePage" BOOLEAN NOT NULL DEFAULT true,
    ADD COLUMN "visitorMessagesPerDay" INTEGER DEFAULT 100,
    ADD COLUMN "dailySpendLimit" DECIMAL(12,2) DEFAULT 5.00,
    ADD COLUMN "proofOfWork" BOOLEAN NOT NULL DEFAULT false;
