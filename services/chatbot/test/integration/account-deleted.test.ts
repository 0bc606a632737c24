// A deleted account's chatbots, through the real AccountDeleted queue into the real database: every
// chatbot of the owner goes as one deletion would (knowledge, picture file, ChatbotDeleted event,
// public revision), another owner's stay, and repeated or concurrent deliveries end the same way.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AccountDeletedSchema } from '@parley/proto/parley/events/v1/account_deleted_pb.js';
import { redisKeys } from '@parley/common/redis-keys.ts';
import { createProducer, QUEUES, type Producer } from '@parley/common/queues.ts';
import { jobSettled } from '@parley/common/testing/jobs.ts';
import { pngImage } from '@parley/common/testing/png.ts';
import { deleteOwnerChatbots } from '../../src/delete-owner-chatbots.ts';
import { newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

let svc: TestChatbotService;
let producer: Producer<typeof AccountDeletedSchema>;

beforeAll(async () => {
  svc = await startChatbotService();
  producer = createProducer(svc.redis, QUEUES.accountDeletedChatbot, AccountDeletedSchema, { prefix: svc.config.QUEUE_PREFIX });
});

afterAll(async () => {
  await producer?.close();
  await svc?.stop();
});

const worker = () => svc.parts.accountDeletedWorker!;
const pictureFile = (url: string) => join(svc.config.MEDIA_DIR, 'chatbots', url.split('/').pop()!);
const revision = (chatbotId: string) => svc.redis.get(redisKeys(svc.config.QUEUE_PREFIX).chatbotRevision(chatbotId));

/** Publishes AccountDeleted under `jobId` and waits for the worker's attempt at it. */
async function deliver(userId: string, jobId: string) {
  const settled = jobSettled(worker(), jobId);
  await producer.publish(create(AccountDeletedSchema, { userId, occurredAt: timestampFromDate(new Date()) }), jobId);
  return settled;
}

/** An owner on the pro plan with `count` chatbots, each with knowledge (several chunks) and a picture. */
async function ownerWithChatbots(label: string, count: number) {
  const ownerId = newOwner(label);
  await svc.makePro(ownerId);
  const chatbots: { id: string; picture: string }[] = [];
  for (let i = 0; i < count; i++) {
    const { id } = await svc.createChatbot(ownerId, `${label} ${i}`);
    await svc.client.addTextEntry({ ownerId, chatbotId: id, text: 'Refunds are possible within 30 days. '.repeat(60) });
    await svc.client.addTextEntry({ ownerId, chatbotId: id, text: 'We open at nine.' });
    const { profilePicture } = await svc.client.setProfilePicture({ ownerId, chatbotId: id, content: pngImage(1, 1, [i, 0, 0]) });
    chatbots.push({ id, picture: profilePicture });
  }
  return { ownerId, chatbots, ids: chatbots.map((c) => c.id) };
}

/** What the database and MEDIA_DIR hold of these chatbots. */
async function held(ownerId: string, ids: string[], pictures: string[]) {
  const files = await Promise.all(
    pictures.map((p) =>
      readFile(pictureFile(p)).then(
        () => true,
        (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? false : Promise.reject(err)),
      ),
    ),
  );
  return {
    chatbots: await svc.db.chatbot.count({ where: { ownerId } }),
    entries: await svc.db.textEntry.count({ where: { chatbotId: { in: ids } } }),
    chunks: await svc.db.knowledgeChunk.count({ where: { chatbotId: { in: ids } } }),
    pictureFiles: files.filter(Boolean).length,
    waitingInOutbox: await svc.db.chatbotDeletedOutbox.count({ where: { chatbotId: { in: ids } } }),
  };
}

const nothing = { chatbots: 0, entries: 0, chunks: 0, pictureFiles: 0, waitingInOutbox: 0 };

describe('AccountDeleted', () => {
  it("deletes every chatbot of the owner as one deletion would, and no other owner's", async () => {
    const gone = await ownerWithChatbots('leaving', 2);
    const kept = await ownerWithChatbots('staying', 1);
    const gonePictures = gone.chatbots.map((c) => c.picture);
    const keptPictures = kept.chatbots.map((c) => c.picture);
    const before = await held(gone.ownerId, gone.ids, gonePictures);
    expect(before).toMatchObject({ chatbots: 2, entries: 4, pictureFiles: 2 });
    expect(before.chunks).toBeGreaterThan(4);
    const keptBefore = await held(kept.ownerId, kept.ids, keptPictures);
    const revisionsBefore = await Promise.all(gone.ids.map(revision));

    const settled = await deliver(gone.ownerId, `account-deleted.${gone.ownerId}`);

    expect(settled.state).toBe('completed');
    expect(await held(gone.ownerId, gone.ids, gonePictures)).toEqual(nothing);
    for (const [i, id] of gone.ids.entries()) {
      expect(await svc.chatbotDeletedEvent(id)).toMatchObject({ chatbotId: id, ownerId: gone.ownerId });
      // The chat service's caches hear of it as of an owner's deletion.
      const now = await revision(id);
      expect(now).toMatch(/^[0-9a-f-]{36}$/);
      expect(now).not.toBe(revisionsBefore[i]);
    }
    expect((await svc.client.listChatbots({ ownerId: gone.ownerId })).chatbots).toEqual([]);

    expect(await held(kept.ownerId, kept.ids, keptPictures)).toEqual(keptBefore);
    expect(keptBefore).toMatchObject({ chatbots: 1, entries: 2, pictureFiles: 1 });
    expect(await svc.chatbotDeletedEvent(kept.ids[0])).toBeUndefined();
  });

  it('ends in the same state when the event is delivered again, and twice at once', async () => {
    const gone = await ownerWithChatbots('twice', 2);
    const kept = await ownerWithChatbots('bystander', 1);
    const pictures = gone.chatbots.map((c) => c.picture);
    const keptBefore = await held(
      kept.ownerId,
      kept.ids,
      kept.chatbots.map((c) => c.picture),
    );

    // Two deliveries of one event under different job ids (a re-publish after a lost acknowledgement),
    // published together so the worker's concurrent slots may take both at once (the exact race is
    // the next test's).
    const [a, b] = await Promise.all([
      deliver(gone.ownerId, `account-deleted.${gone.ownerId}.a`),
      deliver(gone.ownerId, `account-deleted.${gone.ownerId}.b`),
    ]);
    expect([a.state, b.state]).toEqual(['completed', 'completed']);
    const after = await held(gone.ownerId, gone.ids, pictures);
    expect(after).toEqual(nothing);

    // Later again: nothing left, nothing to do, and still no failure.
    expect((await deliver(gone.ownerId, `account-deleted.${gone.ownerId}.c`)).state).toBe('completed');
    expect(await held(gone.ownerId, gone.ids, pictures)).toEqual(after);
    for (const id of gone.ids) {
      expect(await svc.chatbotDeletedEvent(id)).toMatchObject({ chatbotId: id, ownerId: gone.ownerId });
      const jobs = await svc.redis.keys(`${svc.config.QUEUE_PREFIX}:parley.chatbot-deleted:chatbot-deleted.${id}*`);
      expect(jobs).toHaveLength(1);
    }
    expect(
      await held(
        kept.ownerId,
        kept.ids,
        kept.chatbots.map((c) => c.picture),
      ),
    ).toEqual(keptBefore);
  });

  it('deletes each chatbot exactly once when the use case runs twice at the same moment', async () => {
    const gone = await ownerWithChatbots('race', 3);
    const counts = await Promise.all([
      deleteOwnerChatbots(svc.parts.deps, { ownerId: gone.ownerId }),
      deleteOwnerChatbots(svc.parts.deps, { ownerId: gone.ownerId }),
    ]);
    expect(counts[0] + counts[1]).toBe(3);
    expect(
      await held(
        gone.ownerId,
        gone.ids,
        gone.chatbots.map((c) => c.picture),
      ),
    ).toEqual(nothing);
    expect(await deleteOwnerChatbots(svc.parts.deps, { ownerId: gone.ownerId })).toBe(0);
  });

  it('fails an event without a user id at once, deleting nothing', async () => {
    const kept = await ownerWithChatbots('blank', 1);
    const before = await held(
      kept.ownerId,
      kept.ids,
      kept.chatbots.map((c) => c.picture),
    );

    const settled = await deliver('  ', 'account-deleted.blank');

    expect(settled.state).toBe('failed');
    expect(settled.error?.message).toBe('AccountDeleted not applied: owner_id is required.');
    // Not retried: the job is failed for good, not waiting for another attempt.
    expect(await settled.job.getState()).toBe('failed');
    expect(
      await held(
        kept.ownerId,
        kept.ids,
        kept.chatbots.map((c) => c.picture),
      ),
    ).toEqual(before);
  });
});
