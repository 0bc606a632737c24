-- The team answers back on every channel exactly once (docs/adr/0062-channel-replies-exactly-once.md):
-- a stored message's delivery is claimed by the message id before it is sent, and a lead keeps the
-- channel and the channel user's identity it came from.

-- AlterTable
ALTER TABLE "ChannelDelivery" ADD COLUMN "messageId" BIGINT,
ADD COLUMN "claimedUntil" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "Lead" ADD COLUMN "channel" TEXT,
ADD COLUMN "channelContact" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "ChannelDelivery_messageId_key" ON "ChannelDelivery"("messageId");
