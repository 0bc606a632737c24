-- Email (docs/adr/0063-email-channel.md): mails taken and never answered keep their reason; each
-- thread with a contact and every Message-ID received or sent, so a reply continues its thread.
ALTER TABLE "ChannelInbound" ADD COLUMN "skipReason" TEXT;

CREATE TABLE "EmailThread" (
    "connectionId" UUID NOT NULL,
    "chatId" TEXT NOT NULL,
    "contact" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "lastMessageId" TEXT NOT NULL,
    "references" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "EmailThread_pkey" PRIMARY KEY ("connectionId", "chatId")
);

CREATE TABLE "EmailMessage" (
    "connectionId" UUID NOT NULL,
    "messageId" TEXT NOT NULL,
    "chatId" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "contact" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "EmailMessage_pkey" PRIMARY KEY ("connectionId", "messageId")
);

CREATE INDEX "EmailMessage_connectionId_contact_createdAt_idx" ON "EmailMessage"("connectionId", "contact", "createdAt");

ALTER TABLE "EmailThread" ADD CONSTRAINT "EmailThread_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "ChannelConnection"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "EmailMessage" ADD CONSTRAINT "EmailMessage_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "ChannelConnection"("id") ON DELETE CASCADE ON UPDATE CASCADE;
