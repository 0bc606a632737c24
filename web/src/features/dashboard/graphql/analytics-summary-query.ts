import { graphql } from '../../../gql';

export const AnalyticsSummaryQuery = graphql(`
  query AnalyticsSummary($startDate: String, $endDate: String) {
    analyticsSummary(startDate: $startDate, endDate: $endDate) {
      ...AnalyticsFields
    }
  }
`);
