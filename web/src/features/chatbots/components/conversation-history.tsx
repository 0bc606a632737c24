import { useState } from 'react';
import { ConversationDetails } from './conversation-details';
import { ConversationList } from './conversation-list';

/**
 * The History tab: the list of conversations, or one conversation's details until Back is pressed
 * (first `initialConversationId`'s, when a link named one, e.g. a lead's "Open conversation").
 */
export function ConversationHistory({
  chatbotId,
  chatbotName,
  open,
  initialConversationId = null,
}: {
  chatbotId: string;
  chatbotName: string;
  open: boolean;
  initialConversationId?: string | null;
}) {
  const [selectedId, setSelectedId] = useState<string | null>(initialConversationId);
  if (selectedId) {
    return <ConversationDetails chatbotId={chatbotId} conversationId={selectedId} onBack={() => setSelectedId(null)} />;
  }
  return <ConversationList chatbotId={chatbotId} chatbotName={chatbotName} open={open} onSelect={setSelectedId} />;
}
