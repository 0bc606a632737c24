// The daily figures the activity chart can show, one at a time (a year of three series side by
// side would be unreadable bars).
export type ActivityMetric = 'conversations' | 'messages' | 'uniqueVisitors';

export const ACTIVITY_METRICS: ReadonlyArray<{ value: ActivityMetric; label: string }> = [
  { value: 'conversations', label: 'Conversations' },
  { value: 'messages', label: 'Messages' },
  { value: 'uniqueVisitors', label: 'Unique visitors' },
];
