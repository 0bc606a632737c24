-- A chatbot's model choice (services/common/src/models/catalogue.ts): catalogue ids, null for none.
-- No model stored reads as the catalogue's default, so every existing chatbot answers as before.

-- AlterTable
ALTER TABLE "Chatbot" ADD COLUMN "modelId" TEXT,
ADD COLUMN "fallbackModelId" TEXT;
