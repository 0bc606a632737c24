-- The visitor's email as a developer API client tells it (docs/adr/0033-developer-api.md), kept with
-- the conversation beside the id and name; null when not told.

ALTER TABLE "Conversation" ADD COLUMN "visitorEmail" TEXT;
