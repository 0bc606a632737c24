import { graphql } from '../../../gql';

// What the switcher and every workspace page read of a workspace.
export const WorkspaceFieldsFragment = graphql(`
  fragment WorkspaceFields on Workspace {
    id
    name
    personal
    role
    permissions
    assignableRoles
    memberCount
    seatLimit
    requireTwoFactor
  }
`);
