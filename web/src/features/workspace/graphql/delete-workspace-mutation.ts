import { graphql } from '../../../gql';

export const DeleteWorkspaceMutation = graphql(`
  mutation DeleteWorkspace($password: String!) {
    deleteWorkspace(password: $password)
  }
`);
