-- Single sign-on (docs/adr/0047-single-sign-on.md): a workspace's identity provider, its claimed email
-- domains, the sign-ins sent to the provider and not yet back, and the SAML assertions already used.

-- CreateTable
CREATE TABLE "SsoConnection" (
    "workspaceId" UUID NOT NULL,
    "protocol" TEXT NOT NULL,
    "oidcIssuer" TEXT NOT NULL DEFAULT '',
    "oidcClientId" TEXT NOT NULL DEFAULT '',
    "oidcClientSecret" TEXT NOT NULL DEFAULT '',
    "samlEntryPoint" TEXT NOT NULL DEFAULT '',
    "samlIdpIssuer" TEXT NOT NULL DEFAULT '',
    "samlIdpCertificate" TEXT NOT NULL DEFAULT '',
    "defaultRole" TEXT NOT NULL DEFAULT 'viewer',
    "autoCreate" BOOLEAN NOT NULL DEFAULT false,
    "requireSso" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SsoConnection_pkey" PRIMARY KEY ("workspaceId")
);

-- CreateTable
CREATE TABLE "ClaimedDomain" (
    "domain" TEXT NOT NULL,
    "workspaceId" UUID NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ClaimedDomain_pkey" PRIMARY KEY ("domain")
);

-- CreateTable
CREATE TABLE "SsoSignIn" (
    "stateHash" TEXT NOT NULL,
    "workspaceId" UUID NOT NULL,
    "protocol" TEXT NOT NULL,
    "codeVerifier" TEXT NOT NULL DEFAULT '',
    "nonce" TEXT NOT NULL DEFAULT '',
    "samlRequestId" TEXT,
    "testByUserId" UUID,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),

    CONSTRAINT "SsoSignIn_pkey" PRIMARY KEY ("stateHash")
);

-- CreateTable
CREATE TABLE "SamlAssertion" (
    "id" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SamlAssertion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ClaimedDomain_workspaceId_idx" ON "ClaimedDomain"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "SsoSignIn_samlRequestId_key" ON "SsoSignIn"("samlRequestId");

-- CreateIndex
CREATE INDEX "SsoSignIn_expiresAt_idx" ON "SsoSignIn"("expiresAt");

-- CreateIndex
CREATE INDEX "SamlAssertion_expiresAt_idx" ON "SamlAssertion"("expiresAt");

-- AddForeignKey
ALTER TABLE "SsoConnection" ADD CONSTRAINT "SsoConnection_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClaimedDomain" ADD CONSTRAINT "ClaimedDomain_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
