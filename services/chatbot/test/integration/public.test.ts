// The public face of a chatbot, looked up by its uniqueId for the public chat page.
import { Code } from '@connectrpc/connect';
import { Language } from '@parley/proto/language.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService();
});
afterAll(async () => {
  await svc?.stop();
});

const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const NOT_FOUND = 'Chatbot not found or inactive';

describe('GetPublicChatbot', () => {
  it('returns only the public fields of an active chatbot', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner, 'Front desk');
    await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, language: 'french' });
    const { profilePicture } = await svc.client.setProfilePicture({ ownerId: owner, chatbotId: created.id, content: PNG_1X1 });
    await svc.client.addTextEntry({ ownerId: owner, chatbotId: created.id, text: 'Bonjour 😀' });
    await svc.client.addTextEntry({ ownerId: owner, chatbotId: created.id, text: 'Secret internal note.' });

    const { chatbot } = await svc.client.getPublicChatbot({ uniqueId: created.uniqueId });

    // Appearance, embedding and limits: see src/chatbots/__tests__/embed-settings.test.ts; the lead
    // form and handoff, lead-handoff-settings.test.ts; the model, model-choice.test.ts. A new
    // chatbot has no actions (the model's tools) and keeps no personal data from the model.
    const {
      $typeName,
      voice,
      appearance: _a,
      embedding: _e,
      limits: _l,
      leadForm: _f,
      handoff: _h,
      model: _m,
      privacy,
      actions,
      mcpTools,
      ...fields
    } = chatbot!;
    expect($typeName).toBe('parley.chatbot.v1.PublicChatbot');
    expect(actions).toEqual([]);
    expect(mcpTools).toEqual([]);
    expect(privacy).toMatchObject({ redactPersonalData: false, keepOriginal: false, patterns: [] });
    expect(voice).toMatchObject({ instructions: '', welcomeMessage: '', suggestedQuestions: [], noAnswerMessage: '' });
    expect({ ...fields, knowledgeChars: Number(fields.knowledgeChars) }).toEqual({
      id: created.id,
      ownerId: owner,
      name: 'Front desk',
      profilePicture,
      language: 'french',
      primaryLanguage: Language.FRENCH,
      // Characters, not UTF-16 units: "Bonjour 😀" is 9, the note 21.
      knowledgeChars: 30,
      qaPairs: 0,
    });
    const serialised = JSON.stringify(fields, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    expect(serialised).not.toContain('Secret');
    expect(serialised).not.toContain(created.uniqueId);
  });

  it('has an empty picture and no knowledge for a new chatbot', async () => {
    const created = await svc.createChatbot(newOwner(), 'New');
    const { chatbot } = await svc.client.getPublicChatbot({ uniqueId: created.uniqueId });
    expect(chatbot!.profilePicture).toBe('');
    expect(Number(chatbot!.knowledgeChars)).toBe(0);
    expect(chatbot!.language).toBe('english');
  });

  it('accepts the uniqueId with surrounding spaces, but not in another case', async () => {
    const created = await svc.createChatbot(newOwner());
    expect((await svc.client.getPublicChatbot({ uniqueId: ` ${created.uniqueId} ` })).chatbot!.id).toBe(created.id);
    const flipped = [...created.uniqueId].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    if (flipped !== created.uniqueId) await expectRpcError(svc.client.getPublicChatbot({ uniqueId: flipped }), Code.NotFound, NOT_FOUND);
  });

  it('is NotFound while the chatbot is inactive, and found again once reactivated', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner);
    await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, isActive: false });
    await expectRpcError(svc.client.getPublicChatbot({ uniqueId: created.uniqueId }), Code.NotFound, NOT_FOUND);

    await svc.client.updateChatbot({ ownerId: owner, chatbotId: created.id, isActive: true });
    expect((await svc.client.getPublicChatbot({ uniqueId: created.uniqueId })).chatbot!.id).toBe(created.id);
  });

  it('is NotFound for a deleted chatbot', async () => {
    const owner = newOwner();
    const created = await svc.createChatbot(owner);
    await svc.client.deleteChatbot({ ownerId: owner, chatbotId: created.id });
    await expectRpcError(svc.client.getPublicChatbot({ uniqueId: created.uniqueId }), Code.NotFound, NOT_FOUND);
  });

  it('is NotFound for unknown or malformed ids, and for the internal id', async () => {
    const created = await svc.createChatbot(newOwner());
    for (const uniqueId of [
      '',
      '   ',
      'AAAAAAAAAAAAAAAAAAAAAA',
      created.id,
      '../etc/passwd',
      'a'.repeat(65),
      "x' OR '1'='1",
      created.uniqueId.slice(0, -1),
    ]) {
      await expectRpcError(svc.client.getPublicChatbot({ uniqueId }), Code.NotFound, NOT_FOUND);
    }
  });
});
