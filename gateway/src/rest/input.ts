// Typing of REST JSON bodies. Presence and format rules belong to the services (they own the
// messages); the gateway only refuses values of the wrong JSON type, which the services cannot see.
import { invalid } from '@parley/common/rpc-errors.ts';

export type JsonObject = Record<string, unknown>;

/** The parsed body as an object; no body (or a non-JSON content type) counts as an empty one. */
export function jsonObject(body: unknown): JsonObject {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalid('Request body must be a JSON object');
  return body as JsonObject;
}

/** A string field; a missing one reads as "" so the service answers with its own "required" message. */
export function stringField(body: JsonObject, name: string): string {
  const value = body[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalid(`${name} must be a string`);
  return value;
}

/** An optional string field: undefined when absent. */
export function optionalString(body: JsonObject, name: string): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(`${name} must be a string`);
  return value;
}

/** An optional boolean field: undefined when absent. */
export function optionalBoolean(body: JsonObject, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw invalid(`${name} must be true or false`);
  return value;
}
