-- Feedback, analytics aggregates and grouped questions (issue 15).

-- AlterTable
ALTER TABLE "Message" ADD COLUMN "rating" TEXT, ADD COLUMN "ratedAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "AnalyticsDay" (
    "chatbotId" UUID NOT NULL,
    "day" DATE NOT NULL,
    "ownerId" TEXT NOT NULL,
    "conversations" INTEGER NOT NULL DEFAULT 0,
    "messages" INTEGER NOT NULL DEFAULT 0,
    "answered" INTEGER NOT NULL DEFAULT 0,
    "uniqueVisitors" INTEGER NOT NULL DEFAULT 0,
    "thumbsUp" INTEGER NOT NULL DEFAULT 0,
    "thumbsDown" INTEGER NOT NULL DEFAULT 0,
    "answerMsBuckets" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "hours" INTEGER[] DEFAULT ARRAY[]::INTEGER[],

    CONSTRAINT "AnalyticsDay_pkey" PRIMARY KEY ("chatbotId","day")
);

-- CreateTable
CREATE TABLE "AnalyticsVisitor" (
    "chatbotId" UUID NOT NULL,
    "day" DATE NOT NULL,
    "visitorHash" TEXT NOT NULL,

    CONSTRAINT "AnalyticsVisitor_pkey" PRIMARY KEY ("chatbotId","day","visitorHash")
);

-- CreateTable
CREATE TABLE "AnalyticsSession" (
    "chatbotId" UUID NOT NULL,
    "sessionId" TEXT NOT NULL,
    "firstDay" DATE NOT NULL,

    CONSTRAINT "AnalyticsSession_pkey" PRIMARY KEY ("chatbotId","sessionId")
);

-- CreateTable
CREATE TABLE "ProcessedAnalyticsEvent" (
    "requestId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProcessedAnalyticsEvent_pkey" PRIMARY KEY ("requestId")
);

-- CreateTable
CREATE TABLE "QuestionCluster" (
    "id" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "ownerId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "lexemes" TEXT[],
    "count" INTEGER NOT NULL DEFAULT 0,
    "examples" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "lastSeen" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" TEXT NOT NULL DEFAULT 'open',
    "answerEntryId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "QuestionCluster_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuestionClusterDay" (
    "clusterId" UUID NOT NULL,
    "day" DATE NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "QuestionClusterDay_pkey" PRIMARY KEY ("clusterId","day")
);

-- CreateIndex
CREATE INDEX "AnalyticsDay_ownerId_day_idx" ON "AnalyticsDay"("ownerId", "day");
CREATE INDEX "ProcessedAnalyticsEvent_createdAt_idx" ON "ProcessedAnalyticsEvent"("createdAt");
CREATE INDEX "QuestionCluster_chatbotId_kind_status_idx" ON "QuestionCluster"("chatbotId", "kind", "status");
CREATE INDEX "QuestionClusterDay_day_idx" ON "QuestionClusterDay"("day");
-- Candidate groups for a new question: those of its chatbot sharing one of its lexemes (not
-- expressible in Prisma; btree_gin for the chatbot column, under the same lock as the chatbot
-- service's migration, since extensions are per database).
SELECT pg_advisory_xact_lock(hashtext('parley-extension:btree_gin'));
CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public;
CREATE INDEX "QuestionCluster_lexemes_idx" ON "QuestionCluster" USING GIN ("chatbotId", "lexemes");

-- AddForeignKey
ALTER TABLE "QuestionClusterDay" ADD CONSTRAINT "QuestionClusterDay_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "QuestionCluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
