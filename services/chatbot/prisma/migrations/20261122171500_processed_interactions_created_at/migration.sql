-- Counted request ids are kept only while a redelivery is possible (see
-- src/interactions/prune-processed-interactions.ts); the pruning finds the old ones by this index.

-- CreateIndex
CREATE INDEX "ProcessedInteraction_createdAt_idx" ON "ProcessedInteraction"("createdAt");
