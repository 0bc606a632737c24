-- SMS through Twilio (docs/adr/0070-sms-channel.md): the webhook URL each message's status callback
-- goes to, and the numbers that wrote STOP (nothing is sent to them until they write START).
ALTER TABLE "ChannelConnection" ADD COLUMN "callbackUrl" TEXT;

CREATE TABLE "SmsOptOut" (
    "connectionId" UUID NOT NULL,
    "phone" TEXT NOT NULL,
    "optedOutAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "SmsOptOut_pkey" PRIMARY KEY ("connectionId", "phone")
);

ALTER TABLE "SmsOptOut" ADD CONSTRAINT "SmsOptOut_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "ChannelConnection"("id") ON DELETE CASCADE ON UPDATE CASCADE;
