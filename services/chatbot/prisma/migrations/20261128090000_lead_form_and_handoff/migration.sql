-- The lead form and handoff to a person, per chatbot (docs/adr/0034-humans-in-the-loop.md). The
-- defaults ask for nothing and keep handoff off, so every existing chatbot behaves as before.

-- AlterTable
ALTER TABLE "Chatbot" ADD COLUMN "leadName" TEXT NOT NULL DEFAULT 'off',
ADD COLUMN "leadEmail" TEXT NOT NULL DEFAULT 'off',
ADD COLUMN "leadPhone" TEXT NOT NULL DEFAULT 'off',
ADD COLUMN "leadTrigger" TEXT NOT NULL DEFAULT 'before_first_message',
ADD COLUMN "leadAfterMessages" INTEGER NOT NULL DEFAULT 2,
ADD COLUMN "leadConsentText" TEXT NOT NULL DEFAULT '',
ADD COLUMN "handoffEnabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "handoffTimeoutSeconds" INTEGER NOT NULL DEFAULT 300;
