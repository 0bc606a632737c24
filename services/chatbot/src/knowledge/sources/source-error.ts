// Why a file or web page could not become knowledge, in the owner's words: the message is stored
// as the entry's `error` and shown beside it. Anything else thrown while processing is a fault of
// ours, logged, and shown as SOURCE_FAILED.
export class SourceError extends Error {}

export const SOURCE_FAILED = 'Something went wrong while reading this source. Please try again.';

// Why an uploaded file could not become knowledge (parse-file.ts).
export const FILE_ERRORS = {
  unsupported: 'Unsupported file type',
  passwordProtected: 'This PDF is password-protected',
  scanned: 'No text found — is it a scanned image?',
  noText: 'No text found in this file',
  damaged: 'This file could not be read — is it damaged?',
  tooSlow: 'This file took too long to read',
  tooMuchMemory: 'This file needs too much memory to read',
  tooLong: (maxChars: number) => `Document is too long (maximum ${maxChars.toLocaleString('en-US')} characters)`,
};
