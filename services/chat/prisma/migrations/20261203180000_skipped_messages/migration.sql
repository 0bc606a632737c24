-- A message taken and never answered keeps who sent it (email: the sender's address), so the owner
-- reads the recent ones on the channel's card with when and why (docs/adr/0063-email-channel.md).
ALTER TABLE "ChannelInbound" ADD COLUMN "contact" TEXT;

CREATE INDEX "ChannelInbound_connectionId_receivedAt_idx" ON "ChannelInbound"("connectionId", "receivedAt");
