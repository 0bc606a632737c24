// What the chatbot contract tests share: owners, a plan change as a payment would make it, real
// pictures and multipart uploads through the gateway.
import pg from 'pg';
import { expect } from 'vitest';
import { api, uniqueEmail, type ApiResponse, type Stack } from './stack.ts';
export { pngImage } from '@parley/common/testing/png.ts';

export const PASSWORD = 'secret-pass';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const PICTURE_URL = /^\/media\/chatbots\/[0-9a-f]{32}\.png$/;

export interface Owner {
  email: string;
  token: string;
  userId: string;
}

export async function registerOwner(stack: Stack, tag = 'owner'): Promise<Owner> {
  const email = uniqueEmail(tag);
  const res = await api(stack.url, '/api/auth/register', { body: { email, password: PASSWORD, password2: PASSWORD } });
  expect(res.status).toBe(201);
  return { email, token: res.body.token, userId: res.body.user.id };
}

/** Moves the owner to the pro plan in billing's own table, as a completed checkout would. */
export async function makePro(stack: Stack, owner: Owner): Promise<void> {
  // Reading the user makes sure billing has opened the account.
  expect((await api(stack.url, '/api/auth/current', { token: owner.token })).status).toBe(200);
  const { databaseUrl, schema } = stack.billingDatabase;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const res = await client.query(`UPDATE "${schema}"."Account" SET plan = 'pro' WHERE "userId" = $1`, [owner.userId]);
    expect(res.rowCount).toBe(1);
  } finally {
    await client.end();
  }
}

/** The channel tests' chatbot: one that knows when the museum opens; resolves to its id. */
export async function museumBot(stack: Stack, owner: Owner): Promise<string> {
  const created = await api(stack.url, '/api/chatbot', { body: { name: 'Museum Bot' }, token: owner.token });
  expect(created.status).toBe(201);
  const id: string = created.body._id;
  await api(stack.url, `/api/chatbot/${id}/knowledge-base/text`, {
    body: { text: 'The museum opens at ten and closes at six, every day but Monday.' },
    token: owner.token,
  });
  return id;
}

/** A multipart form with one file, as the web app's picture upload sends it. */
export function pictureForm(content: Uint8Array, { field = 'profilePicture', filename = 'avatar.png', type = 'image/png' } = {}): FormData {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(content)], { type }), filename);
  return form;
}

/** POSTs a form (or any body) to the gateway; fetch sets the multipart boundary itself. */
export async function postForm(
  stack: Stack,
  path: string,
  body: FormData | string,
  opts: { token?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(stack.url + path, { method: 'POST', headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Reads a file from the gateway as bytes. */
export async function fetchBytes(stack: Stack, path: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(stack.url + path);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}
