-- Messaging channels (docs/adr/0044-messaging-channels.md): a chatbot's connections to a provider
-- (its bot token sealed under PROVIDER_KEY_ENCRYPTION_KEY, only a hash of the webhook secret kept),
-- the provider messages taken in once, each channel user's conversation, and every send's record.

-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN "channel" TEXT;

-- CreateTable
CREATE TABLE "ChannelConnection" (
    "id" UUID NOT NULL,
    "ownerId" TEXT NOT NULL,
    "chatbotId" UUID NOT NULL,
    "uniqueId" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "tokenCiphertext" TEXT NOT NULL,
    "tokenLastFour" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "botName" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'connected',
    "lastError" TEXT,
    "lastChatId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ChannelConnection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChannelInbound" (
    "connectionId" UUID NOT NULL,
    "providerMessageId" TEXT NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChannelInbound_pkey" PRIMARY KEY ("connectionId","providerMessageId")
);

-- CreateTable
CREATE TABLE "ChannelThread" (
    "connectionId" UUID NOT NULL,
    "chatId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "conversationMarked" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChannelThread_pkey" PRIMARY KEY ("connectionId","chatId")
);

-- CreateTable
CREATE TABLE "ChannelDelivery" (
    "id" UUID NOT NULL,
    "connectionId" UUID NOT NULL,
    "chatId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChannelDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ChannelConnection_chatbotId_channel_key" ON "ChannelConnection"("chatbotId", "channel");

-- CreateIndex
CREATE INDEX "ChannelConnection_ownerId_idx" ON "ChannelConnection"("ownerId");

-- CreateIndex
CREATE INDEX "ChannelDelivery_connectionId_createdAt_idx" ON "ChannelDelivery"("connectionId", "createdAt");

-- AddForeignKey
ALTER TABLE "ChannelInbound" ADD CONSTRAINT "ChannelInbound_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "ChannelConnection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChannelThread" ADD CONSTRAINT "ChannelThread_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "ChannelConnection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChannelDelivery" ADD CONSTRAINT "ChannelDelivery_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "ChannelConnection"("id") ON DELETE CASCADE ON UPDATE CASCADE;
