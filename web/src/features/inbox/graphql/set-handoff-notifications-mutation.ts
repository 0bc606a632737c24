import { graphql } from '../../../gql';

export const SetHandoffNotificationsMutation = graphql(`
  mutation SetHandoffNotifications($enabled: Boolean!) {
    setHandoffNotifications(enabled: $enabled)
  }
`);
