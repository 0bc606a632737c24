import { graphql } from '../../../gql';

export const LeaveWorkspaceMutation = graphql(`
  mutation LeaveWorkspace {
    leaveWorkspace
  }
`);
