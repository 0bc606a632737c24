// A call's request headers on the lean transport (lean-unary.ts): the Fetch API's Headers as the
// interceptors use it (get, set, has, append, delete, iteration in name order), kept in a plain record
// the transport hands to node:http as it is. undici's Headers validates through WebIDL converters and
// keeps a sorted list on every change, which cost the gateway about 2 % of its CPU a public chat message
// in a profile (docs/benchmarks.md). Names are lower-cased and checked as tokens, values trimmed of
// HTTP whitespace and refused with NUL, CR or LF, as Headers does; several values of one name are
// joined with ", " (a request carries no Set-Cookie, so there is no list of those to keep apart).

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

export class PlainHeaders implements Headers {
  /** Lower-case name → value. */
  readonly record: Record<string, string> = {};

  constructor(init?: HeadersInit) {
    if (init === undefined) return;
    if (Array.isArray(init)) for (const [name, value] of init) this.append(name, value);
    else if (typeof (init as Headers).forEach === 'function') (init as Headers).forEach((value, name) => this.append(name, value));
    else for (const name of Object.keys(init)) this.append(name, (init as Record<string, string>)[name]);
  }

  /** Node's parsed request headers (names lower-cased and checked by its parser), several values joined as Headers joins them. */
  static fromNode(raw: Record<string, string | string[] | undefined>): PlainHeaders {
    const headers = new PlainHeaders();
    const record = headers.record;
    for (const key in raw) {
      const value = raw[key];
      if (value === undefined) continue;
      // Node's parser has trimmed each value already.
      record[key] = typeof value === 'string' ? value : value.join(', ');
    }
    return headers;
  }

  append(name: string, value: string): void {
    const key = checkedName(name);
    const v = checkedValue(value);
    const record = this.record;
    record[key] = Object.hasOwn(record, key) ? `${record[key]}, ${v}` : v;
  }

  set(name: string, value: string): void {
    this.record[checkedName(name)] = checkedValue(value);
  }

  get(name: string): string | null {
    const key = checkedName(name);
    return Object.hasOwn(this.record, key) ? this.record[key] : null;
  }

  has(name: string): boolean {
    return Object.hasOwn(this.record, checkedName(name));
  }

  delete(name: string): void {
    delete this.record[checkedName(name)];
  }

  getSetCookie(): string[] {
    return Object.hasOwn(this.record, 'set-cookie') ? [this.record['set-cookie']] : [];
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const key of this.sortedNames()) callback.call(thisArg, this.record[key], key, this);
  }

  *entries(): HeadersIterator<[string, string]> {
    for (const key of this.sortedNames()) yield [key, this.record[key]];
  }

  *keys(): HeadersIterator<string> {
    yield* this.sortedNames();
  }

  *values(): HeadersIterator<string> {
    for (const key of this.sortedNames()) yield this.record[key];
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  private sortedNames(): string[] {
    return Object.keys(this.record).sort();
  }
}

function checkedName(name: string): string {
  if (!TOKEN.test(name)) throw new TypeError(`Headers: invalid header name "${name}"`);
  return name.toLowerCase();
}

function checkedValue(value: string): string {
  const v = String(value).replace(HTTP_WHITESPACE, '');
  if (FORBIDDEN_IN_VALUE.test(v)) throw new TypeError(`Headers: invalid header value`);
  return v;
}
