-- The judge, generated cases and the regression mail (docs/adr/0061-the-judge-generated-cases-and-the-regression-mail.md).
ALTER TABLE "TestRun" ADD COLUMN "judgeModel" TEXT NOT NULL DEFAULT '';
ALTER TABLE "TestRun" ADD COLUMN "rubric" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "TestRun" ADD COLUMN "regressionMailedAt" TIMESTAMPTZ(3);

ALTER TABLE "TestResult" ADD COLUMN "judgeVerdicts" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "TestResult" ADD COLUMN "judgeError" TEXT NOT NULL DEFAULT '';
ALTER TABLE "TestResult" ADD COLUMN "judgeRequestId" TEXT NOT NULL DEFAULT '';
ALTER TABLE "TestResult" ADD COLUMN "judgeCost" DECIMAL(20,10) NOT NULL DEFAULT 0;

CREATE TABLE "QualitySettings" (
    "chatbotId" UUID NOT NULL,
    "ownerId" TEXT NOT NULL,
    "judgeEnabled" BOOLEAN NOT NULL DEFAULT false,
    "judgeModel" TEXT NOT NULL DEFAULT '',
    "rubric" JSONB NOT NULL DEFAULT '[]',
    "emailOnRegression" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "QualitySettings_pkey" PRIMARY KEY ("chatbotId")
);

CREATE TABLE "ProposedTestCase" (
    "id" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "ownerId" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "facts" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProposedTestCase_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "ProposedTestCase_chatbotId_createdAt_idx" ON "ProposedTestCase"("chatbotId", "createdAt");
