-- Retention windows (docs/adr/0048-retention-windows.md): a workspace's windows, and the index the sweep reads by.
CREATE TABLE "RetentionWindow" (
    "ownerId" TEXT NOT NULL,
    "conversationDays" INTEGER,
    "leadDays" INTEGER,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "RetentionWindow_pkey" PRIMARY KEY ("ownerId")
);

CREATE INDEX "Conversation_ownerId_updatedAt_idx" ON "Conversation"("ownerId", "updatedAt");
