// Replacing a chatbot's profile picture: check the content, write the new file, point the chatbot
// at it, then remove the old file. The row is locked while it is repointed, so two concurrent
// uploads each remove exactly the picture they replaced.
import { formatBytes } from '@parley/common/bytes.ts';
import type { Logger } from '@parley/common/logger.ts';
import { invalid, notFound } from '@parley/common/rpc-errors.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { CHATBOT_NOT_FOUND } from '../core/chatbot-input.ts';
import { parseOwnedRef, type OwnedChatbotRef } from '../core/owned-chatbot.ts';
import { detectImageType } from './image-type.ts';
import { removePicture, writePicture } from './picture-files.ts';

export const PICTURE_TYPE_INVALID = 'Profile picture must be a JPEG, PNG or GIF image';
export const pictureTooLarge = (maxBytes: number) => `Profile picture must be at most ${formatBytes(maxBytes)}`;

export interface SetProfilePictureDeps {
  db: PrismaClient;
  mediaDir: string;
  maxPictureBytes: number;
  logger: Logger;
}

export async function setProfilePicture(deps: SetProfilePictureDeps, input: OwnedChatbotRef & { content: Uint8Array }): Promise<string> {
  const { ownerId, chatbotId } = parseOwnedRef(input);
  // Cheap ownership check before anything else; the locked re-read below is the real one.
  if (!(await deps.db.chatbot.count({ where: { id: chatbotId, ownerId } }))) throw notFound(CHATBOT_NOT_FOUND);
  if (input.content.length > deps.maxPictureBytes) throw invalid(pictureTooLarge(deps.maxPictureBytes));
  const type = detectImageType(input.content);
  if (!type) throw invalid(PICTURE_TYPE_INVALID);

  const picture = await writePicture(deps.mediaDir, input.content, type.ext);
  let previous: string | null;
  try {
    previous = await deps.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ profilePicture: string | null }[]>`
        SELECT "profilePicture" FROM "Chatbot" WHERE "id" = ${chatbotId}::uuid AND "ownerId" = ${ownerId} FOR UPDATE`;
      if (!row) throw notFound(CHATBOT_NOT_FOUND);
      await tx.chatbot.update({ where: { id: chatbotId }, data: { profilePicture: picture } });
      return row.profilePicture;
    });
  } catch (err) {
    await removePicture(deps.mediaDir, picture);
    throw err;
  }
  await removePicture(deps.mediaDir, previous).catch((err: Error) =>
    deps.logger.warn({ err: err.message, chatbotId }, 'could not remove the replaced profile picture'),
  );
  return picture;
}
