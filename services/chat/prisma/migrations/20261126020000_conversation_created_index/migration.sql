-- The export reads a chatbot's conversations oldest first, a page at a time, along this index
-- ((createdAt, id): a conversation's creation never changes, so a page's place holds while
-- visitors write). Written once per conversation, when its first exchange is stored.

-- CreateIndex
CREATE INDEX "Conversation_chatbotId_createdAt_id_idx" ON "Conversation"("chatbotId", "createdAt", "id");
