// The not-found answers more than one process gives, written once: a service's refusal and the
// gateway's own (for an id it can tell names nothing before asking) must read the same.
export const CHATBOT_NOT_FOUND = 'Chatbot not found';
export const CONVERSATION_NOT_FOUND = 'Conversation not found';
