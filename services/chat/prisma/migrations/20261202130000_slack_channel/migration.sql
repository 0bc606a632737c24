-- Slack connections keep their app's signing secret, sealed under PROVIDER_KEY_ENCRYPTION_KEY.
ALTER TABLE "ChannelConnection" ADD COLUMN "signingSecretCiphertext" TEXT;
