// The member's role on the gateway's calls (docs/adr/0030-workspaces.md): each owner-facing method
// needs the permission of src/permissions.ts, a gateway call without a role is refused, and calls
// from the chat service (which carry none) are not checked.
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { WebhookService } from '@parley/proto/parley/chatbot/v1/webhooks_pb.js';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { DEVELOPMENT_SERVICE_SECRET, type Caller } from '@parley/common/service-auth.ts';
import { chatbotPermissions, chatbotUnchecked, webhookPermissions } from '../../src/permissions.ts';
import { rpcError, startChatbotService, type TestChatbotService } from './harness.ts';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService();
});
afterAll(async () => {
  await svc?.stop();
});

const as = (caller: Caller, role?: string) =>
  createServiceClient(ChatbotService, svc.url, { credentials: { caller, secret: DEVELOPMENT_SERVICE_SECRET }, role });

describe("the gateway's calls carry the member's role", () => {
  it('names every method of the service: checked with a permission, or public or between services', () => {
    const checked = [...chatbotPermissions.keys()].map((path) => path.split('/').pop());
    expect([...checked, ...chatbotUnchecked].sort()).toEqual(ChatbotService.methods.map((m) => m.name).sort());
    // Every method of the webhook endpoints is an admin's.
    expect([...webhookPermissions.keys()].map((path) => path.split('/').pop()).sort()).toEqual(
      WebhookService.methods.map((m) => m.name).sort(),
    );
  });

  it('lets an admin manage webhook endpoints and refuses an editor', async () => {
    const ownerId = crypto.randomUUID();
    const webhooks = (role: string) =>
      createServiceClient(WebhookService, svc.url, { credentials: { caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET }, role });
    expect((await rpcError(webhooks('editor').listWebhookEndpoints({ ownerId }))).code).toBe(Code.PermissionDenied);
    expect((await webhooks('admin').listWebhookEndpoints({ ownerId })).endpoints).toEqual([]);
  });

  it('lets a viewer read chatbots but not change them, and an editor change them', async () => {
    const ownerId = crypto.randomUUID();
    const bot = await svc.createChatbot(ownerId);
    const viewer = as('gateway', 'viewer');
    expect((await viewer.listChatbots({ ownerId })).chatbots.map((c) => c.id)).toEqual([bot.id]);
    expect((await viewer.getChatbot({ ownerId, chatbotId: bot.id })).chatbot?.name).toBe(bot.name);

    // Each call starts when its turn comes: a refusal nobody awaits yet would be an unhandled rejection.
    for (const call of [
      () => viewer.createChatbot({ ownerId, name: 'Nope' }),
      () => viewer.updateChatbot({ ownerId, chatbotId: bot.id, name: 'Renamed' }),
      () => viewer.addTextEntry({ ownerId, chatbotId: bot.id, text: 'We open at nine.' }),
      () => viewer.deleteChatbot({ ownerId, chatbotId: bot.id }),
      () => as('gateway', 'agent').addQaEntry({ ownerId, chatbotId: bot.id, question: 'When?', answer: 'Nine.' }),
    ]) {
      expect((await rpcError(call())).code).toBe(Code.PermissionDenied);
    }
    expect((await svc.client.getChatbot({ ownerId, chatbotId: bot.id })).chatbot?.name).toBe(bot.name);

    const editor = as('gateway', 'editor');
    expect((await editor.updateChatbot({ ownerId, chatbotId: bot.id, name: 'Renamed' })).chatbot?.name).toBe('Renamed');
  });

  it('refuses an owner-facing call without a role, or with one that is no role', async () => {
    const ownerId = crypto.randomUUID();
    for (const client of [as('gateway'), as('gateway', 'superuser')]) {
      const err = await rpcError(client.listChatbots({ ownerId }));
      expect(err.code).toBe(Code.PermissionDenied);
    }
  });

  it('checks nothing on the public methods, nor on calls from the chat service', async () => {
    const ownerId = crypto.randomUUID();
    const bot = await svc.createChatbot(ownerId);
    const publicAnswer = await as('gateway').getPublicChatbot({ uniqueId: bot.uniqueId });
    expect(publicAnswer.chatbot?.name).toBe(bot.name);
    // An owner-facing method the chat service calls without a role: the call graph governs it.
    expect((await as('chat').getChatbot({ ownerId, chatbotId: bot.id })).chatbot?.name).toBe(bot.name);
  });
});
