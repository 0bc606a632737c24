-- Each attempt of a webhook delivery, for the delivery log: when, the answer's status, how long it
-- took, the failure. A delivery is tried for about a day and may be redelivered, so only its last 20
-- attempts are kept (the delivery's own columns still say how many there were and what the last one
-- answered). Read per delivery in order, and trimmed per delivery, along ("deliveryId", "id").

-- CreateTable
CREATE TABLE "WebhookAttempt" (
    "id" BIGSERIAL NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "attemptedAt" TIMESTAMPTZ(3) NOT NULL,
    "responseStatus" INTEGER NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "error" TEXT NOT NULL,

    CONSTRAINT "WebhookAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WebhookAttempt_deliveryId_id_idx" ON "WebhookAttempt"("deliveryId", "id");

-- AddForeignKey
ALTER TABLE "WebhookAttempt" ADD CONSTRAINT "WebhookAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;
