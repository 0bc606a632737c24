// The gateway is the only public door: every RPC method of every internal service refuses a caller
// without the deployment's service secret (docs/adr/0012-service-to-service-trust.md), while the
// product works through the gateway.
import type { DescService } from '@bufbuild/protobuf';
import { signServiceToken, DEVELOPMENT_SERVICE_SECRET, type Caller } from '@parley/common/service-auth.ts';
import { ApiKeyService } from '@parley/proto/parley/auth/v1/api_keys_pb.js';
import { AuthService } from '@parley/proto/parley/auth/v1/auth_pb.js';
import { BillingService } from '@parley/proto/parley/billing/v1/billing_pb.js';
import { ChatService } from '@parley/proto/parley/chat/v1/chat_pb.js';
import { ChatbotService } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOwner } from './chatbot-fixtures.ts';
import { api, startStack, TEST_SERVICE_SECRET, type Stack } from './stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

/** Each internal service, where the stack runs it, and the callers the call graph allows it. */
const services = (): [DescService, string, Caller[]][] => [
  [AuthService, stack.authUrl, ['gateway']],
  [ApiKeyService, stack.authUrl, ['gateway']],
  [BillingService, stack.billingUrl, ['gateway', 'chat', 'chatbot']],
  [ChatbotService, stack.chatbotUrl, ['gateway', 'chat']],
  [ChatService, stack.chatUrl, ['gateway']],
];

/** One call of every method, in binary (the lean handler) and JSON (the generic one), with the given headers. */
async function callEveryMethod(headers: Record<string, string>): Promise<Response[]> {
  const answers: Response[] = [];
  for (const [service, url] of services()) {
    for (const method of service.methods) {
      const path = `${url}/${service.typeName}/${method.name}`;
      if (method.methodKind === 'server_streaming') {
        const json = Buffer.from('{}');
        const envelope = Buffer.concat([Buffer.from([0, 0, 0, 0, json.length]), json]);
        answers.push(
          await fetch(path, { method: 'POST', headers: { 'content-type': 'application/connect+json', ...headers }, body: envelope }),
        );
      } else {
        answers.push(
          await fetch(path, { method: 'POST', headers: { 'content-type': 'application/proto', ...headers }, body: new Uint8Array() }),
        );
        answers.push(await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' }));
      }
    }
  }
  return answers;
}

async function expectAllRefused(answers: Response[]) {
  expect(answers.length).toBeGreaterThan(40);
  const answered = answers.filter((r) => r.status !== 401);
  expect(answered.map((r) => `${r.status} ${r.url}`)).toEqual([]);
  for (const res of answers) expect(await res.json()).toMatchObject({ code: 'unauthenticated' });
}

describe('internal services', () => {
  it('answer no call without service credentials', async () => {
    await expectAllRefused(await callEveryMethod({}));
  });

  it('answer no call signed with another secret (the development default is not this stack’s)', async () => {
    const token = signServiceToken({ caller: 'gateway', secret: DEVELOPMENT_SERVICE_SECRET });
    await expectAllRefused(await callEveryMethod({ authorization: `Bearer ${token}` }));
  });

  it('answer only the callers their call graph allows', async () => {
    for (const [service, url, allowed] of services()) {
      for (const caller of ['gateway', 'chat', 'chatbot'] as const) {
        const token = signServiceToken({ caller, secret: TEST_SERVICE_SECRET });
        const method = service.methods.find((m) => m.methodKind === 'unary')!;
        const res = await fetch(`${url}/${service.typeName}/${method.name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: '{}',
        });
        // Allowed: the method itself answers (whatever it makes of an empty request); refused: 401.
        expect(res.status === 401, `${caller} → ${service.typeName}`).toBe(!allowed.includes(caller));
      }
    }
  });

  it('still answer health checks, and the product works through the gateway', async () => {
    for (const [, url] of services()) expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const owner = await registerOwner(stack);
    expect((await api(stack.url, '/api/chatbot', { token: owner.token })).status).toBe(200);
  });
});
