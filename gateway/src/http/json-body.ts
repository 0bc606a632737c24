// The operation rows' JSON body (operations.ts), read as express.json reads it. A browser's ordinary
// request (`Content-Type: application/json`, its length announced within the limit, no content
// encoding) is read here in one pass: its chunks, utf-8 with a BOM dropped, strict JSON (an empty
// body reads as {}), with body-parser's error types for what fails (operations.ts's face maps them:
// errors.ts bodyParserError). Every other request (chunked, compressed, another charset or content
// type, over the limit, already ended) goes through express.json itself, so its answers stay
// body-parser's own: the type check, the charset, the inflating and the limit's 413 after the body is
// drained. What this saves a public chat message: body-parser's content-type and type-is parsing, the
// iconv decoder and raw-body's stream machinery (docs/benchmarks.md).
import express, { type Request, type RequestHandler, type Response } from 'express';

/** The body parser of a face, and its limit in bytes when this module can tell it as body-parser does. */
export interface JsonBodyReader {
  generic: RequestHandler;
  limitBytes: number | undefined;
}

export function jsonBodyReader(limit: string): JsonBodyReader {
  return { generic: express.json({ limit }), limitBytes: limitInBytes(limit) };
}

/** The content types read here: what browsers and the widget send; another spelling goes to express.json. */
const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/** The limit as the `bytes` package reads it, for the forms the gateway's BODY_LIMIT takes ("100kb", "1mb", "512"); undefined otherwise. */
export function limitInBytes(limit: string): number | undefined {
  const unit = /^(\d+(?:\.\d+)?) *(kb|mb)$/i.exec(limit);
  if (unit) return Math.floor(Number(unit[1]) * (unit[2].toLowerCase() === 'kb' ? 1024 : 1024 * 1024));
  return /^\d+$/.test(limit) ? Number(limit) : undefined;
}

/**
 * The body as a body parser (express.json, express.urlencoded, express.raw) reads it into req.body, for
 * a row that reads its own; the parser's refusal (413, 415, 400) is thrown to the face's error handler.
 */
export function readBodyWith(parser: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise<void>((resolve, reject) => parser(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
}

/** Into req.body, as express.json would; its refusal (400, 413, 415) rejected with body-parser's error type. */
export function readJsonBody(reader: JsonBodyReader, req: Request, res: Response): Promise<void> {
  const declared = plainJsonLength(req, reader.limitBytes);
  if (declared === undefined) return readBodyWith(reader.generic, req, res);
  return new Promise<void>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const onAborted = () => {
      cleanup();
      reject(
        bodyError(400, 'request aborted', 'request.aborted', { code: 'ECONNABORTED', expected: declared, length: declared, received }),
      );
    };
    const onError = (err: Error & { code?: string }) => {
      cleanup();
      if (err.code === 'ECONNRESET' && !req.complete) return onAborted();
      reject(Object.assign(err, { status: 400, statusCode: 400, expose: true }));
    };
    const onEnd = () => {
      cleanup();
      if (received !== declared)
        return reject(
          bodyError(400, 'request size did not match content length', 'request.size.invalid', {
            expected: declared,
            length: declared,
            received,
          }),
        );
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
      let text = bytes.toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      try {
        req.body = parseStrict(text);
      } catch (err) {
        return reject(Object.assign(err as Error, { status: 400, statusCode: 400, expose: true, body: text, type: 'entity.parse.failed' }));
      }
      resolve();
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('aborted', onAborted);
    req.once('error', onError);
  });
}

/** The announced length of a request this module reads itself, or undefined for express.json's. */
function plainJsonLength(req: Request, limit: number | undefined): number | undefined {
  if (limit === undefined || !req.readable || req.readableEnded || !req.socket?.readable) return undefined;
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined) return undefined;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding !== 'identity') return undefined;
  const type = headers['content-type'];
  if (type === undefined || !PLAIN_JSON.has(type.toLowerCase())) return undefined;
  const length = headers['content-length'];
  if (length === undefined || !/^\d{1,15}$/.test(length)) return undefined;
  const declared = Number(length);
  return declared <= limit ? declared : undefined;
}

/** body-parser's strict JSON: an empty body is {}, anything but an object or an array a syntax error. */
function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  if (text[0] !== '{' && text[0] !== '[') {
    // JSON's whitespace is space, tab, line feed and carriage return.
    let i = 0;
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
    const first = text[i];
    if (first !== '{' && first !== '[') throw new SyntaxError(`Unexpected token in JSON: the body does not start with { or [`);
  }
  return JSON.parse(text);
}

function bodyError(status: number, message: string, type: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type, ...fields });
}
