-- Verified visitors (docs/adr/0046-mcp-server-and-verified-visitors.md): a chatbot's identity
-- secret, sealed under PROVIDER_KEY_ENCRYPTION_KEY (AES-256-GCM, the chatbot's id bound in as
-- associated data), and the verified identity kept on the conversation. Additive: nullable columns.

-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "verifiedAt" TIMESTAMPTZ(3),
ADD COLUMN     "verifiedEmail" TEXT,
ADD COLUMN     "verifiedUserId" TEXT;

-- CreateTable
CREATE TABLE "IdentitySecret" (
    "chatbotId" UUID NOT NULL,
    "ownerId" TEXT NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IdentitySecret_pkey" PRIMARY KEY ("chatbotId")
);
