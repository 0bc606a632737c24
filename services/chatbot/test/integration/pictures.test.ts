// Profile pictures: recognised by content, stored under MEDIA_DIR/chatbots with random names,
// replaced and removed with the chatbot. The service runs with a 2 KB limit.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectImageType } from '../../src/pictures/image-type.ts';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';
import { pngImage } from '@parley/common/testing/png.ts';

const MAX_BYTES = 2048;
const TYPE_INVALID = 'Profile picture must be a JPEG, PNG or GIF image';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService({ MAX_PICTURE_BYTES: String(MAX_BYTES) });
});
afterAll(async () => {
  await svc?.stop();
});

const RED = pngImage(1, 1, [255, 0, 0]);
const BLUE = pngImage(1, 1, [0, 0, 255]);
const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\0'),
  Buffer.alloc(64),
  Buffer.from([0xff, 0xd9]),
]);

const STORED = /^\/media\/chatbots\/([0-9a-f]{32})\.(png|jpg|gif)$/;
const fileOf = (url: string) => join(svc.config.MEDIA_DIR, 'chatbots', url.split('/').pop()!);
const nameOf = (url: string) => url.split('/').pop()!;

async function newChatbot() {
  const owner = newOwner();
  const chatbot = await svc.createChatbot(owner);
  return { ownerId: owner, chatbotId: chatbot.id };
}

/** Picture file names a test created are checked against the whole directory: tests run one at a time. */
describe('SetProfilePicture', () => {
  it('stores a PNG under a random name and points the chatbot at it', async () => {
    expect(detectImageType(RED)?.ext).toBe('png');
    const ref = await newChatbot();
    const before = await svc.pictureFiles();

    const { profilePicture } = await svc.client.setProfilePicture({ ...ref, content: RED });

    expect(profilePicture).toMatch(STORED);
    expect(profilePicture.endsWith('.png')).toBe(true);
    expect(await readFile(fileOf(profilePicture))).toEqual(RED);
    expect(await svc.pictureFiles()).toEqual([...before, nameOf(profilePicture)].sort());
    const { chatbot } = await svc.client.getChatbot(ref);
    expect(chatbot!.profilePicture).toBe(profilePicture);
  });

  it('names each upload differently, even with the same content', async () => {
    const a = await newChatbot();
    const b = await newChatbot();
    const first = (await svc.client.setProfilePicture({ ...a, content: BLUE })).profilePicture;
    const second = (await svc.client.setProfilePicture({ ...b, content: BLUE })).profilePicture;
    expect(first).not.toBe(second);
    expect(first).not.toContain(a.chatbotId);
  });

  it('stores JPEG and GIF with their own extension, and removes the picture each one replaces', async () => {
    const ref = await newChatbot();
    const png = (await svc.client.setProfilePicture({ ...ref, content: RED })).profilePicture;
    const jpg = (await svc.client.setProfilePicture({ ...ref, content: JPEG })).profilePicture;
    expect(jpg).toMatch(/\.jpg$/);
    await expect(readFile(fileOf(png))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(fileOf(jpg))).toEqual(JPEG);

    const gif = (await svc.client.setProfilePicture({ ...ref, content: GIF_1X1 })).profilePicture;
    expect(gif).toMatch(/\.gif$/);
    await expect(readFile(fileOf(jpg))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(fileOf(gif))).toEqual(GIF_1X1);
    expect((await svc.client.getChatbot(ref)).chatbot!.profilePicture).toBe(gif);
  });

  it('refuses HTML or SVG sent as a picture, keeping the current one and writing nothing', async () => {
    const ref = await newChatbot();
    const current = (await svc.client.setProfilePicture({ ...ref, content: RED })).profilePicture;
    const files = await svc.pictureFiles();

    for (const content of [
      Buffer.from('<!DOCTYPE html><html><body><script>document.cookie</script></body></html>'),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'),
      Buffer.from('\uFEFF<html>not a png</html>'),
      RED.subarray(0, 8),
      new Uint8Array(0),
    ]) {
      await expectRpcError(svc.client.setProfilePicture({ ...ref, content }), Code.InvalidArgument, TYPE_INVALID);
    }

    expect(await svc.pictureFiles()).toEqual(files);
    expect((await svc.client.getChatbot(ref)).chatbot!.profilePicture).toBe(current);
  });

  it('accepts a picture of exactly the maximum size and refuses one byte more', async () => {
    const ref = await newChatbot();
    // A PNG signature followed by padding: the size is checked whatever the content.
    const exact = Buffer.concat([RED, Buffer.alloc(MAX_BYTES - RED.length)]);
    expect((await svc.client.setProfilePicture({ ...ref, content: exact })).profilePicture).toMatch(STORED);
    const files = await svc.pictureFiles();

    await expectRpcError(
      svc.client.setProfilePicture({ ...ref, content: Buffer.concat([exact, Buffer.from([0])]) }),
      Code.InvalidArgument,
      'Profile picture must be at most 2 KB',
    );
    expect(await svc.pictureFiles()).toEqual(files);
  });

  it('leaves no temporary files behind', async () => {
    const ref = await newChatbot();
    await Promise.all([RED, BLUE, GIF_1X1, JPEG].map((content) => svc.client.setProfilePicture({ ...ref, content })));
    const files = await svc.pictureFiles();
    expect(files.filter((f) => !/^[0-9a-f]{32}\.(png|jpg|gif)$/.test(f))).toEqual([]);
    // Concurrent uploads each removed the picture they replaced: only the final one is left of this chatbot's.
    const final = (await svc.client.getChatbot(ref)).chatbot!.profilePicture;
    const rows = await svc.db.chatbot.findMany({ select: { profilePicture: true } });
    const referenced = new Set(rows.map((r) => r.profilePicture && nameOf(r.profilePicture)));
    expect(referenced.has(nameOf(final))).toBe(true);
    expect(files.filter((f) => !referenced.has(f))).toEqual([]);
  });
});

describe('DeleteChatbot', () => {
  it("removes the chatbot's picture file", async () => {
    const ref = await newChatbot();
    const keep = await newChatbot();
    const picture = (await svc.client.setProfilePicture({ ...ref, content: RED })).profilePicture;
    const kept = (await svc.client.setProfilePicture({ ...keep, content: BLUE })).profilePicture;

    await svc.client.deleteChatbot(ref);

    await expect(readFile(fileOf(picture))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(fileOf(kept))).toEqual(BLUE);
  });

  it('deletes a chatbot that never had a picture', async () => {
    const ref = await newChatbot();
    const files = await svc.pictureFiles();
    await svc.client.deleteChatbot(ref);
    expect(await svc.pictureFiles()).toEqual(files);
  });
});
