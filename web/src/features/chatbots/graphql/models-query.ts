import { graphql } from '../../../gql';

// The models this deployment offers chatbots, the default first, each with whether the workspace's plan allows it.
export const ModelsQuery = graphql(`
  query Models {
    models {
      id
      provider
      displayName
      typicalAnswerCost
      allowed
      isDefault
    }
  }
`);
