-- A workspace's own provider keys (docs/adr/0043-own-provider-keys.md): one per owner and provider,
-- encrypted under the operator's PROVIDER_KEY_ENCRYPTION_KEY (AES-256-GCM, the owner and provider
-- bound in as associated data); only the last four characters are kept in the clear, to show.

-- CreateTable
CREATE TABLE "ProviderKey" (
    "ownerId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "lastFour" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProviderKey_pkey" PRIMARY KEY ("ownerId","provider")
);
