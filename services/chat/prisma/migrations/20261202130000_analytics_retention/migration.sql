-- Analytics retention (docs/adr/0059-retention-in-every-service.md): how long a workspace keeps its
-- analytics aggregates (chatbot days, visitors' days, question groups' days), beside its other windows.
ALTER TABLE "RetentionWindow" ADD COLUMN "analyticsDays" INTEGER;
