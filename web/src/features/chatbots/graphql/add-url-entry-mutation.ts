import { graphql } from '../../../gql';

export const AddUrlEntryMutation = graphql(`
  mutation AddUrlEntry($chatbotId: ID!, $url: String!, $crawl: Boolean, $maxPages: Int) {
    addUrlEntry(chatbotId: $chatbotId, url: $url, crawl: $crawl, maxPages: $maxPages) {
      ...TextEntryResultFields
    }
  }
`);
