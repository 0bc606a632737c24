-- Webhook delivery retention (docs/adr/0059-retention-in-every-service.md): a workspace's window for
-- its finished deliveries, swept every hour (their attempts go with them: ON DELETE CASCADE).
CREATE TABLE "WebhookRetention" (
    "ownerId" TEXT NOT NULL,
    "deliveryDays" INTEGER,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "WebhookRetention_pkey" PRIMARY KEY ("ownerId")
);
