-- Personal data kept from the model (docs/adr/0049-personal-data-kept-from-the-model.md): off by default.
ALTER TABLE "Chatbot" ADD COLUMN "redactPersonalData" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Chatbot" ADD COLUMN "keepOriginalWords" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Chatbot" ADD COLUMN "redactionPatterns" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
