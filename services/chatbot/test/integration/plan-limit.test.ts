// The free plan's one-chatbot limit, with the plan read from a real billing service.
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRpcError, newOwner, startChatbotService, type TestChatbotService } from './harness.ts';

let svc: TestChatbotService;
beforeAll(async () => {
  svc = await startChatbotService();
});
afterAll(async () => {
  await svc?.stop();
});

const LIMIT_MESSAGE = 'Free users can only create one chatbot.';

describe('the free plan', () => {
  it("refuses a free owner's second chatbot with FailedPrecondition and limit-reached metadata", async () => {
    const owner = newOwner('free');
    const first = await svc.createChatbot(owner, 'First');

    const err = await expectRpcError(svc.client.createChatbot({ ownerId: owner, name: 'Second' }), Code.FailedPrecondition, LIMIT_MESSAGE);
    expect(err.metadata.get('limit-reached')).toBe('true');

    const { chatbots } = await svc.client.listChatbots({ ownerId: owner });
    expect(chatbots.map((c) => c.id)).toEqual([first.id]);
  });

  it('does not mark other create errors as the limit', async () => {
    const owner = newOwner('free');
    await svc.createChatbot(owner);
    // The name is checked first: a bad name is a bad name, whatever the plan.
    const err = await expectRpcError(svc.client.createChatbot({ ownerId: owner, name: ' ' }), Code.InvalidArgument, 'Name is required');
    expect(err.metadata.get('limit-reached')).toBeNull();
  });

  it("counts only the owner's own chatbots", async () => {
    const a = newOwner('free-a');
    const b = newOwner('free-b');
    await svc.createChatbot(a);
    expect((await svc.createChatbot(b)).ownerId).toBe(b);
  });

  it('lets exactly one of ten concurrent creates by a free owner through', async () => {
    // Three owners racing at once, so the check and the insert really interleave.
    const owners = [newOwner('racer'), newOwner('racer'), newOwner('racer')];
    const results = await Promise.all(
      owners.map((owner) =>
        Promise.allSettled(Array.from({ length: 10 }, (_, i) => svc.client.createChatbot({ ownerId: owner, name: `Bot ${i}` }))),
      ),
    );

    for (const [o, owner] of owners.entries()) {
      expect(results[o].filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const refusals = results[o].filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as ConnectError);
      expect(refusals).toHaveLength(9);
      for (const err of refusals) {
        expect(err).toBeInstanceOf(ConnectError);
        expect(err.code).toBe(Code.FailedPrecondition);
        expect(err.rawMessage).toBe(LIMIT_MESSAGE);
      }
      expect(await svc.db.chatbot.count({ where: { ownerId: owner } })).toBe(1);
    }
  });
});

describe('the pro plan', () => {
  it('has no chatbot limit', async () => {
    const owner = newOwner('pro');
    await svc.makePro(owner);
    for (let i = 0; i < 4; i++) await svc.createChatbot(owner, `Bot ${i}`);
    const concurrent = await Promise.all(Array.from({ length: 5 }, (_, i) => svc.createChatbot(owner, `Parallel ${i}`)));
    expect(concurrent).toHaveLength(5);
    expect((await svc.client.listChatbots({ ownerId: owner })).chatbots).toHaveLength(9);
  });

  it('applies as soon as billing says the owner is pro', async () => {
    const owner = newOwner('upgrading');
    await svc.createChatbot(owner, 'Free one');
    await expectRpcError(svc.client.createChatbot({ ownerId: owner, name: 'Too many' }), Code.FailedPrecondition, LIMIT_MESSAGE);
    await svc.makePro(owner);
    expect((await svc.createChatbot(owner, 'Now allowed')).name).toBe('Now allowed');
  });
});
