// What a visitor reads when the public chat cannot answer (the gateway shows these texts as they are).
import { unavailableToUser } from '@parley/common/rpc-errors.ts';

/** The chatbot service, billing or the owner's credit cannot serve this chatbot now. */
export const CHATBOT_UNAVAILABLE = 'This chatbot is temporarily unavailable. Please try again later.';
/** The model, the database or Redis failed on the way to an answer. */
export const ANSWER_FAILED = 'The chatbot could not answer right now. Please try again.';

export const chatbotUnavailable = () => unavailableToUser(CHATBOT_UNAVAILABLE);
export const answerFailed = () => unavailableToUser(ANSWER_FAILED);
