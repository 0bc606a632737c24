// How every view of the gateway writes a service's timestamp: ISO 8601 in UTC, null when unset.
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';

export const isoDate = (ts: Timestamp | undefined): string | null => (ts ? timestampDate(ts).toISOString() : null);
