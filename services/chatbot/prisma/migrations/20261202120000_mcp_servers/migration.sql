-- MCP tools (docs/adr/0055-mcp-tools-and-built-in-tools.md): remote MCP servers an owner connects to a
-- chatbot, and one row per call of one of their tools for the owner's log.

-- AlterTable
ALTER TABLE "Chatbot" ADD COLUMN "mcpToolCount" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "McpServer" (
    "id" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secretHeader" TEXT NOT NULL DEFAULT '',
    "secret" TEXT NOT NULL DEFAULT '',
    "secretHint" TEXT NOT NULL DEFAULT '',
    "tools" JSONB NOT NULL,
    "enabledTools" JSONB NOT NULL,
    "timeoutMs" INTEGER NOT NULL DEFAULT 10000,
    "maxResultBytes" INTEGER NOT NULL DEFAULT 262144,
    "lastError" TEXT NOT NULL DEFAULT '',
    "listedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "McpServer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "McpToolCall" (
    "id" UUID NOT NULL,
    "serverId" UUID NOT NULL,
    "chatbotId" UUID NOT NULL,
    "toolName" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL DEFAULT '',
    "callKey" TEXT,
    "inputs" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "error" TEXT NOT NULL DEFAULT '',
    "durationMs" INTEGER NOT NULL DEFAULT 0,
    "fieldsRead" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "result" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "McpToolCall_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "McpServer_chatbotId_name_key" ON "McpServer"("chatbotId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "McpToolCall_callKey_key" ON "McpToolCall"("callKey");

-- CreateIndex
CREATE INDEX "McpToolCall_serverId_createdAt_idx" ON "McpToolCall"("serverId", "createdAt");

-- CreateIndex
CREATE INDEX "McpToolCall_chatbotId_sessionId_idx" ON "McpToolCall"("chatbotId", "sessionId");

-- AddForeignKey
ALTER TABLE "McpServer" ADD CONSTRAINT "McpServer_chatbotId_fkey" FOREIGN KEY ("chatbotId") REFERENCES "Chatbot"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "McpToolCall" ADD CONSTRAINT "McpToolCall_serverId_fkey" FOREIGN KEY ("serverId") REFERENCES "McpServer"("id") ON DELETE CASCADE ON UPDATE CASCADE;
