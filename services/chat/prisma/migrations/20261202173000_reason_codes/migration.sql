-- Reason codes (docs/adr/0065-reason-codes.md): why an answer could not help, why a visitor asked
-- for a person, why a group of questions went unanswered. Additive, nullable columns.
ALTER TABLE "Conversation" ADD COLUMN "handoffReason" TEXT;
ALTER TABLE "Message" ADD COLUMN "reason" TEXT;
ALTER TABLE "QuestionCluster" ADD COLUMN "reason" TEXT;
