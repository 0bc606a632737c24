-- Whether the knowledge gave an answer, kept on it, so its thumbs down files the question among the
-- unanswered only when the analytics worker did not already (issue 15).

-- AlterTable
ALTER TABLE "Message" ADD COLUMN "answered" BOOLEAN;
