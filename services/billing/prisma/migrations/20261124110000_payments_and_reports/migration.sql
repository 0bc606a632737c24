-- Payments, credit reservations and usage reports.

-- AlterTable
ALTER TABLE "Account" ADD COLUMN "reservedCredit" DECIMAL(20,10) NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "CreditReservation" (
    "requestId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "amount" DECIMAL(20,10) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "CreditReservation_pkey" PRIMARY KEY ("requestId")
);

-- CreateIndex
CREATE INDEX "CreditReservation_expiresAt_idx" ON "CreditReservation"("expiresAt");

-- CreateTable
CREATE TABLE "ProcessedStripeEvent" (
    "eventId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "processedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProcessedStripeEvent_pkey" PRIMARY KEY ("eventId")
);

-- CreateTable
CREATE TABLE "Subscription" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "statusAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Subscription_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Subscription_userId_idx" ON "Subscription"("userId");

-- CreateEnum
CREATE TYPE "CheckoutProduct" AS ENUM ('pro_subscription', 'credit_topup');

-- CreateTable
CREATE TABLE "CheckoutSession" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "product" "CheckoutProduct" NOT NULL,
    "customerId" TEXT NOT NULL,
    "amountCents" INTEGER,
    "testMode" BOOLEAN NOT NULL,
    "successUrl" TEXT NOT NULL,
    "cancelUrl" TEXT NOT NULL,
    "completedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CheckoutSession_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CheckoutSession_userId_idx" ON "CheckoutSession"("userId");

-- CreateTable
CREATE TABLE "UsageDaily" (
    "userId" TEXT NOT NULL,
    "chatbotId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "requestCount" INTEGER NOT NULL,
    "promptTokens" BIGINT NOT NULL,
    "completionTokens" BIGINT NOT NULL,
    "promptCost" DECIMAL(20,10) NOT NULL,
    "completionCost" DECIMAL(20,10) NOT NULL,

    CONSTRAINT "UsageDaily_pkey" PRIMARY KEY ("userId","day","chatbotId")
);

-- The days of the usage recorded before this table existed.
INSERT INTO "UsageDaily" ("userId", "chatbotId", "day", "requestCount", "promptTokens", "completionTokens", "promptCost", "completionCost")
SELECT "userId", "chatbotId", ("occurredAt" AT TIME ZONE 'UTC')::date, count(*), sum("promptTokens"), sum("completionTokens"), sum("promptCost"), sum("completionCost")
  FROM "UsageRecord" GROUP BY 1, 2, 3;
