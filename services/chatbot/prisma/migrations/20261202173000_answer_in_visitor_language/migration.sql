-- Answers in the visitor's language (docs/adr/0065-reason-codes.md): off by default, additive.
ALTER TABLE "Chatbot" ADD COLUMN "answerInVisitorLanguage" BOOLEAN NOT NULL DEFAULT false;
