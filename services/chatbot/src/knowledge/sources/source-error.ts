// Why a file or web page could not become knowledge, in the owner's words: the message is stored
// as the entry's `error` and shown beside it. Anything else thrown while processing is a fault of
// ours, logged, and shown as SOURCE_FAILED.
export class SourceError extends Error {}

export const SOURCE_FAILED = 'Something went wrong while reading this source. Please try again.';
