// Picture files under MEDIA_DIR/chatbots, named by random ids so names cannot be guessed or
// collide. A file is written to a temporary name and renamed into place, so a reader never sees a
// half-written picture.
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const PICTURE_URL_PREFIX = '/media/chatbots/';
const STORED_NAME = /^[0-9a-f]{32}\.(?:jpg|png|gif)$/;

export async function writePicture(mediaDir: string, content: Uint8Array, ext: string): Promise<string> {
  const dir = join(mediaDir, 'chatbots');
  await mkdir(dir, { recursive: true });
  const name = `${randomBytes(16).toString('hex')}.${ext}`;
  const temp = join(dir, `.${name}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, content, { flag: 'wx' });
    await rename(temp, join(dir, name));
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  return `${PICTURE_URL_PREFIX}${name}`;
}

/** Removes a stored picture by its URL path; anything not shaped like one of ours is left alone. */
export async function removePicture(mediaDir: string, urlPath: string | null | undefined): Promise<void> {
  const file = pictureFile(mediaDir, urlPath);
  if (file) await rm(file, { force: true });
}

export function pictureFile(mediaDir: string, urlPath: string | null | undefined): string | undefined {
  if (!urlPath?.startsWith(PICTURE_URL_PREFIX)) return undefined;
  const name = urlPath.slice(PICTURE_URL_PREFIX.length);
  return STORED_NAME.test(name) ? join(mediaDir, 'chatbots', name) : undefined;
}
