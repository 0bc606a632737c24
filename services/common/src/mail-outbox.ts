// The local mail outbox: with no SMTP server configured outside production, auth writes each mail
// here instead of sending it, and the gateway's /dev/mail page reads them back. One `<id>.json` per
// mail (what the page shows) and the raw message as `<id>.eml` beside it (to open in a mail client).
// Ids start with the time, so sorting the names sorts the mails.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface OutboxMail {
  id: string;
  /** ISO 8601. */
  date: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html?: string;
}

// 13 base-36 digits of milliseconds (sortable until the year 2500 and beyond), then 12 hex digits of chance.
const ID = /^[0-9a-z]{13}-[0-9a-f]{12}$/;

export function newOutboxMailId(now = new Date()): string {
  return `${now.getTime().toString(36).padStart(13, '0')}-${randomBytes(6).toString('hex')}`;
}

export function isOutboxMailId(id: string): boolean {
  return ID.test(id);
}

/** Writes the mail (and its raw form, when given) into `dir`, creating the folder when missing. */
export async function writeOutboxMail(dir: string, mail: OutboxMail, raw?: Buffer | string): Promise<void> {
  if (!isOutboxMailId(mail.id)) throw new Error(`not an outbox mail id: ${JSON.stringify(mail.id)}`);
  await mkdir(dir, { recursive: true });
  if (raw !== undefined) await writeAtomically(join(dir, `${mail.id}.eml`), raw);
  // The .json last: a reader that lists it finds the .eml already there.
  await writeAtomically(join(dir, `${mail.id}.json`), `${JSON.stringify(mail, null, 2)}\n`);
}

/** The latest mails, newest first. A missing folder is an empty outbox. */
export async function readOutbox(dir: string, opts: { limit: number }): Promise<OutboxMail[]> {
  const ids = (await listIds(dir)).sort().reverse().slice(0, Math.max(0, opts.limit));
  const mails = await Promise.all(ids.map((id) => readOutboxMail(dir, id)));
  return mails.filter((m): m is OutboxMail => m !== null);
}

/** One mail, or null when there is none with this id. Refuses ids that are not of the generated shape. */
export async function readOutboxMail(dir: string, id: string): Promise<OutboxMail | null> {
  if (!isOutboxMailId(id)) return null;
  const json = await readIfExists(join(dir, `${id}.json`));
  if (json === null) return null;
  try {
    return JSON.parse(json.toString('utf8')) as OutboxMail;
  } catch {
    return null; // not ours, or hand-edited: not shown
  }
}

/** The raw message (.eml) of one mail, or null. Refuses ids that are not of the generated shape. */
export async function readOutboxRawMail(dir: string, id: string): Promise<Buffer | null> {
  if (!isOutboxMailId(id)) return null;
  return readIfExists(join(dir, `${id}.eml`));
}

async function listIds(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -'.json'.length))
    .filter(isOutboxMailId);
}

async function readIfExists(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

// A reader never sees half a file: write beside it, then rename over.
async function writeAtomically(path: string, data: Buffer | string): Promise<void> {
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, data);
  await rename(temp, path);
}
