import { graphql } from '../../../gql';

// The workspace's retention windows (docs/product.md, Data retention): read, previewed, saved.
export const RetentionQuery = graphql(`
  query Retention {
    retention {
      conversationDays
      leadDays
      usageDetailDays
      webhookDeliveryDays
      analyticsDays
    }
  }
`);

export const RetentionPreviewQuery = graphql(`
  query RetentionPreview($input: RetentionInput!) {
    retentionPreview(input: $input) {
      conversations
      messages
      leads
      usageRecords
      webhookDeliveries
      analyticsDays
      questionGroups
    }
  }
`);

export const SetRetentionMutation = graphql(`
  mutation SetRetention($input: RetentionInput!) {
    setRetention(input: $input) {
      conversationDays
      leadDays
      usageDetailDays
      webhookDeliveryDays
      analyticsDays
    }
  }
`);
