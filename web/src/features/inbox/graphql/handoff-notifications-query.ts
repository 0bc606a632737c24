import { graphql } from '../../../gql';

// The member's own switch "Email me when a visitor is waiting", in the current workspace.
export const HandoffNotificationsQuery = graphql(`
  query HandoffNotifications {
    currentWorkspace {
      id
      handoffNotifications
    }
  }
`);
