-- An answer the visitor received is billed even when the process dies before its UsageRecorded is
-- published (docs/adr/0037-answers-billed-when-a-process-dies.md): the model's answer keeps its
-- request id and its usage (the UsageRecorded's fields) in the statement that stores the exchange,
-- and the reconciliation finds it by request id when billing lists its hold as expired. Only
-- answers the model gave carry one, so the partial index takes no entry for visitors' messages,
-- offline and Q&A answers, agents' replies and notes.

-- AlterTable
ALTER TABLE "Message" ADD COLUMN "requestId" TEXT, ADD COLUMN "usage" JSONB;

-- CreateIndex
CREATE INDEX "Message_requestId_idx" ON "Message"("requestId") WHERE "requestId" IS NOT NULL;
