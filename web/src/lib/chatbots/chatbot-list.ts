import type { ChatbotSummaryFragment } from '../../gql/graphql';

export type ChatbotSummary = ChatbotSummaryFragment;

export interface ChatbotListState {
  chatbots: ChatbotSummary[];
  /** True once a fetch has succeeded for the signed-in user, so "empty" means "has none". */
  loaded: boolean;
  loading: boolean;
  error: string | null;
}

export type ChatbotListAction =
  | { type: 'fetchStarted' }
  | { type: 'fetchSucceeded'; chatbots: ChatbotSummary[] }
  | { type: 'fetchFailed'; error: string }
  | { type: 'added'; chatbot: ChatbotSummary }
  | { type: 'updated'; chatbot: Pick<ChatbotSummary, 'id'> & Partial<ChatbotSummary> }
  | { type: 'removed'; id: string }
  | { type: 'cleared' };

export const emptyChatbotList: ChatbotListState = { chatbots: [], loaded: false, loading: false, error: null };

/** The list transitions (docs/product.md, Chatbots): create appends, update replaces the matching item, delete removes it. */
export function chatbotListReducer(state: ChatbotListState, action: ChatbotListAction): ChatbotListState {
  switch (action.type) {
    case 'fetchStarted':
      return { ...state, loading: true, error: null };
    case 'fetchSucceeded':
      return { chatbots: action.chatbots, loaded: true, loading: false, error: null };
    case 'fetchFailed':
      // The list shown so far stays: a failed refresh should not empty the screen.
      return { ...state, loading: false, error: action.error };
    case 'added':
      if (state.chatbots.some((c) => c.id === action.chatbot.id)) return state;
      return { ...state, chatbots: [...state.chatbots, action.chatbot] };
    case 'updated': {
      const { chatbot } = action;
      if (!state.chatbots.some((c) => c.id === chatbot.id)) return state;
      return { ...state, chatbots: state.chatbots.map((c) => (c.id === chatbot.id ? { ...c, ...chatbot } : c)) };
    }
    case 'removed':
      if (!state.chatbots.some((c) => c.id === action.id)) return state;
      return { ...state, chatbots: state.chatbots.filter((c) => c.id !== action.id) };
    case 'cleared':
      return emptyChatbotList;
  }
}
