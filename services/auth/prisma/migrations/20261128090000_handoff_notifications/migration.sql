-- Mails about visitors waiting for a person (docs/adr/0034-humans-in-the-loop.md): each member's
-- switch (on by default) and, per conversation, who was mailed, written before the mail goes out so a
-- retried job mails no one twice.

-- AlterTable
ALTER TABLE "Membership" ADD COLUMN "notifyHandoff" BOOLEAN NOT NULL DEFAULT true;

-- CreateTable
CREATE TABLE "HandoffNotice" (
    "conversationId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "HandoffNotice_pkey" PRIMARY KEY ("conversationId","userId")
);

-- CreateIndex
CREATE INDEX "HandoffNotice_workspaceId_idx" ON "HandoffNotice"("workspaceId");

-- AddForeignKey
ALTER TABLE "HandoffNotice" ADD CONSTRAINT "HandoffNotice_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
