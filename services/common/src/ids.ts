// The one rule for an id that is a UUID (every service's uuid keys, auth's user and workspace ids),
// in either case, as Postgres reads them. Anything else names nothing: callers answer it as an
// unknown id (NOT_FOUND) or a bad value (INVALID_ARGUMENT), each in its own words.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether the text is a UUID as given (no surrounding spaces: Postgres refuses those too). */
export function isUuid(raw: string): boolean {
  return UUID.test(raw);
}
