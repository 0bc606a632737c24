import { graphql } from '../../../gql';

export const AuditLogQuery = graphql(`
  query AuditLog($filter: AuditLogFilter, $first: Int, $after: String) {
    auditLog(filter: $filter, first: $first, after: $after) {
      events {
        id
        actorEmail
        action
        target
        details
        clientIp
        createdAt
      }
      nextCursor
    }
  }
`);
