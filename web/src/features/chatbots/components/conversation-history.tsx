import { useState } from 'react';
import { ConversationDetails } from './conversation-details';
import { ConversationList } from './conversation-list';

/** The History tab: the list of conversations, or one conversation's details until Back is pressed. */
export function ConversationHistory({ chatbotId, chatbotName, open }: { chatbotId: string; chatbotName: string; open: boolean }) {
  const [selectedId, setSelectedId] = useState<string | null>(null);
  if (selectedId) {
    return <ConversationDetails chatbotId={chatbotId} conversationId={selectedId} onBack={() => setSelectedId(null)} />;
  }
  return <ConversationList chatbotId={chatbotId} chatbotName={chatbotName} open={open} onSelect={setSelectedId} />;
}
