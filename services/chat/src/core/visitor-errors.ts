// What a visitor reads when the public chat cannot answer (the gateway shows these texts as they are).
import { notFound, unavailableToUser } from '@parley/common/rpc-errors.ts';

export const PUBLIC_CHATBOT_NOT_FOUND = 'Chatbot not found or inactive';
/** The chatbot service, billing or the owner's credit cannot serve this chatbot now. */
export const CHATBOT_UNAVAILABLE = 'This chatbot is temporarily unavailable. Please try again later.';
/** The model, the database or Redis failed on the way to an answer. */
export const ANSWER_FAILED = 'The chatbot could not answer right now. Please try again.';

export const chatbotNotFound = () => notFound(PUBLIC_CHATBOT_NOT_FOUND);
export const chatbotUnavailable = () => unavailableToUser(CHATBOT_UNAVAILABLE);
export const answerFailed = () => unavailableToUser(ANSWER_FAILED);
