-- Meta's channels (WhatsApp, Messenger, Instagram): the app secret, the account ids, the 24-hour window's start, the provider's message id of a delivery.
ALTER TABLE "ChannelConnection" ADD COLUMN "appSecretCiphertext" TEXT;
ALTER TABLE "ChannelConnection" ADD COLUMN "accountId" TEXT;
ALTER TABLE "ChannelConnection" ADD COLUMN "businessAccountId" TEXT;
ALTER TABLE "ChannelThread" ADD COLUMN "lastInboundAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
ALTER TABLE "ChannelDelivery" ADD COLUMN "providerMessageId" TEXT;
CREATE INDEX "ChannelDelivery_connectionId_providerMessageId_idx" ON "ChannelDelivery"("connectionId", "providerMessageId");
