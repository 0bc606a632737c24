// Every owner call is scoped to the owner: another owner's chatbot, or an id that cannot be one,
// is answered exactly like a chatbot that does not exist, and nothing about it changes.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chatbot } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService();
});
afterAll(async () => {
  await svc?.stop();
});

const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const NOT_FOUND = 'Chatbot not found';

/** Every owner RPC on one chatbot, as `ownerId` would call it. */
function ownerCalls(ownerId: string, chatbotId: string, entryId: string) {
  return {
    getChatbot: () => svc.client.getChatbot({ ownerId, chatbotId }),
    updateChatbot: () => svc.client.updateChatbot({ ownerId, chatbotId, name: 'Hijacked', isActive: false, language: 'french' }),
    deleteChatbot: () => svc.client.deleteChatbot({ ownerId, chatbotId }),
    setProfilePicture: () => svc.client.setProfilePicture({ ownerId, chatbotId, content: PNG_1X1 }),
    addTextEntry: () => svc.client.addTextEntry({ ownerId, chatbotId, text: 'Injected knowledge' }),
    deleteTextEntry: () => svc.client.deleteTextEntry({ ownerId, chatbotId, entryId }),
  };
}

describe("another owner's chatbot", () => {
  let owner: string;
  let chatbot: Chatbot;
  let entryId: string;

  beforeAll(async () => {
    owner = newOwner('first');
    chatbot = await svc.createChatbot(owner, 'Mine');
    await svc.client.setProfilePicture({ ownerId: owner, chatbotId: chatbot.id, content: PNG_1X1 });
    const { knowledgeBase } = await svc.client.addTextEntry({ ownerId: owner, chatbotId: chatbot.id, text: 'Our shop opens at nine.' });
    entryId = knowledgeBase!.textEntries[0].id;
  });

  const intruder = newOwner('second');
  it.each(Object.keys(ownerCalls('', '', '')))('is NotFound to %s', async (rpc) => {
    const calls = ownerCalls(intruder, chatbot.id, entryId);
    await expectRpcError(calls[rpc as keyof typeof calls](), Code.NotFound, NOT_FOUND);
  });

  it('is unchanged after all those calls', async () => {
    const before = await svc.db.chatbot.findUniqueOrThrow({ where: { id: chatbot.id } });
    const calls = ownerCalls(intruder, chatbot.id, entryId);
    for (const call of Object.values(calls)) await expectRpcError(call(), Code.NotFound, NOT_FOUND);

    const { chatbot: after } = await svc.client.getChatbot({ ownerId: owner, chatbotId: chatbot.id });
    expect(after).toMatchObject({
      name: 'Mine',
      isActive: true,
      language: 'english',
      ownerId: owner,
      profilePicture: before.profilePicture,
    });
    expect(after!.knowledgeBase!.textEntries.map((e) => e.id)).toEqual([entryId]);
    expect(after!.knowledgeBase!.text).toBe('Our shop opens at nine.');
    expect(await svc.db.chatbot.findUniqueOrThrow({ where: { id: chatbot.id } })).toEqual(before);
    expect(await svc.pictureFiles()).toEqual([before.profilePicture!.split('/').pop()]);
    expect(await svc.chatbotDeletedEvent(chatbot.id)).toBeUndefined();
    expect((await svc.client.listChatbots({ ownerId: intruder })).chatbots).toEqual([]);
  });

  it("cannot delete the owner's entry through a chatbot of the intruder's own", async () => {
    const own = await svc.createChatbot(intruder, 'Intruder bot');
    await expectRpcError(
      svc.client.deleteTextEntry({ ownerId: intruder, chatbotId: own.id, entryId }),
      Code.NotFound,
      'Text entry not found',
    );
    expect(await svc.db.textEntry.count({ where: { id: entryId } })).toBe(1);
  });
});

describe('malformed chatbot ids', () => {
  const ids = ['', 'not-a-uuid', '42', '00000000-0000-4000-8000-00000000000', `'; DROP TABLE "Chatbot"; --`, '../../etc/passwd'];

  it.each(ids)('%j is NotFound to every owner RPC', async (chatbotId) => {
    const owner = newOwner();
    const calls = ownerCalls(owner, chatbotId, '00000000-0000-4000-8000-000000000000');
    for (const call of Object.values(calls)) await expectRpcError(call(), Code.NotFound, NOT_FOUND);
  });

  it('is NotFound to Retrieve', async () => {
    for (const chatbotId of ids) await expectRpcError(svc.client.retrieve({ chatbotId, query: 'hours', k: 0 }), Code.NotFound, NOT_FOUND);
    await expectRpcError(
      svc.client.retrieve({ chatbotId: '00000000-0000-4000-8000-000000000000', query: 'hours', k: 0 }),
      Code.NotFound,
      NOT_FOUND,
    );
  });
});
