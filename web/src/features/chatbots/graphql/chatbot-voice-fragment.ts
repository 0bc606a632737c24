import { graphql } from '../../../gql';

// How the chatbot speaks: the owner's instructions, temperature and the public page's opening words.
export const ChatbotVoiceFragment = graphql(`
  fragment ChatbotVoice on Chatbot {
    id
    instructions
    temperature
    welcomeMessage
    suggestedQuestions
    noAnswerMessage
    answerInVisitorLanguage
  }
`);
