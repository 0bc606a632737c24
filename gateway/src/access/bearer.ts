// The bearer token of a request, read the one way every path reads it.
import type { Request } from 'express';

/** The token of an `Authorization: Bearer <token>` header; anything else counts as no token. */
export function bearerToken(req: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
  return match?.[1];
}
