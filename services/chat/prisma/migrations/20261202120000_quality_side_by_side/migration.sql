-- A side by side (docs/adr/0058-side-by-side-runs.md): a run may carry a draft of the chatbot's
-- settings, and each case then has two results, the chatbot's configuration's and the draft's.
ALTER TABLE "TestRun" ADD COLUMN "draft" JSONB;
ALTER TABLE "TestResult" ADD COLUMN "variant" TEXT NOT NULL DEFAULT 'current';
DROP INDEX "TestResult_runId_caseId_key";
CREATE UNIQUE INDEX "TestResult_runId_caseId_variant_key" ON "TestResult"("runId", "caseId", "variant");
