// Webhook events of the public chat, end to end: answers → the analytics worker's batches →
// conversation.started and message.created on parley.webhook-events → the chatbot service's fan-out
// and signed delivery to a local receiver (verified with the standardwebhooks library); a rating →
// feedback.created. An owner without a subscribed endpoint has nothing published at all.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { fromJson, type JsonValue } from '@bufbuild/protobuf';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebhookService } from '@parley/proto/parley/chatbot/v1/webhooks_pb.js';
import { WebhookEventBatchSchema, WebhookEventSchema } from '@parley/proto/parley/events/v1/webhook_event_pb.js';
import { QUEUES } from '@parley/common/queues.ts';
import { createServiceClient } from '@parley/common/rpc-client.ts';
import { session, startChatStack, visitor, type ChatStack } from './harness.ts';

interface Payload {
  type: string;
  version: number;
  data: Record<string, unknown>;
}

let stack: ChatStack;
let server: Server;
let secret = '';
const received: { id: string; payload: Payload }[] = [];
const unverified: string[] = [];

beforeAll(async () => {
  // The receiver listens on loopback, which only local use may reach (the stack reads process.env).
  process.env.KNOWLEDGE_URL_ALLOW_PRIVATE = '1';
  stack = await startChatStack({}, { chatbotWorkers: true });
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const payload = new Webhook(secret).verify(body, req.headers as Record<string, string>) as Payload;
        received.push({ id: String(req.headers['webhook-id']), payload });
      } catch {
        unverified.push(body);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await stack?.stop();
  delete process.env.KNOWLEDGE_URL_ALLOW_PRIVATE;
});

/** The owners named by the events published to parley.webhook-events so far. */
async function publishedOwners(): Promise<string[]> {
  const queue = new Queue(QUEUES.webhookEvents, { connection: stack.redis, prefix: stack.prefix });
  try {
    const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
    return jobs.flatMap((j) =>
      j.name === WebhookEventBatchSchema.typeName
        ? fromJson(WebhookEventBatchSchema, j.data as JsonValue).events.map((e) => e.ownerId)
        : [fromJson(WebhookEventSchema, j.data as JsonValue).ownerId],
    );
  } finally {
    await queue.close();
  }
}

describe('webhook events of the public chat', () => {
  it('deliver conversation.started once per conversation, message.created per answer and feedback.created per rating', async () => {
    const bot = await stack.newChatbot({ knowledge: ['We open at nine and close at five.'] });
    const quiet = await stack.newChatbot({ knowledge: ['Nothing to see.'] });
    const hooks = createServiceClient(WebhookService, stack.chatbotUrl);
    const created = await hooks.createWebhookEndpoint({
      ownerId: bot.ownerId,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/parley`,
      events: ['conversation.started', 'message.created', 'feedback.created'],
    });
    secret = created.secret;

    const first = session('wh-1');
    const second = session('wh-2');
    const a = await stack.client.sendMessage(visitor(bot.uniqueId, 'When do you open?', { sessionId: first }));
    await stack.client.sendMessage(visitor(bot.uniqueId, 'And when do you close?', { sessionId: first }));
    await stack.client.sendMessage(visitor(bot.uniqueId, 'Are you open at nine?', { sessionId: second }));
    await stack.client.sendMessage(visitor(quiet.uniqueId, 'Hello?', { sessionId: session('wh-quiet') }));
    await stack.client.rateMessage({
      uniqueId: bot.uniqueId,
      sessionId: first,
      messageId: a.messageId,
      rating: 'down',
      clientIp: '203.0.113.9',
    });

    const byType = () => Object.groupBy(received, (r) => r.payload.type);
    await vi.waitFor(
      () => {
        const types = byType();
        expect(types['conversation.started']?.length).toBe(2);
        expect(types['message.created']?.length).toBe(3);
        expect(types['feedback.created']?.length).toBe(1);
      },
      { timeout: 20_000, interval: 100 },
    );
    const types = byType();
    expect(types['conversation.started']!.map((r) => r.payload.data.conversationId).sort()).toEqual([first, second].sort());
    expect(types['message.created']!.map((r) => r.payload.data.question).sort()).toEqual(
      ['And when do you close?', 'Are you open at nine?', 'When do you open?'].sort(),
    );
    // Deliveries arrive in any order, and whether the model answered each question is the model's: each
    // says which chatbot and whether it was answered.
    for (const { payload } of types['message.created']!) {
      expect(payload).toMatchObject({ version: 1, data: { chatbotId: bot.id } });
      expect(typeof payload.data.answered).toBe('boolean');
    }
    expect(types['feedback.created']![0].payload.data).toMatchObject({
      chatbotId: bot.id,
      conversationId: first,
      messageId: a.messageId,
      rating: 'down',
    });
    expect(new Set(received.map((r) => r.id)).size).toBe(received.length);
    expect(unverified).toEqual([]);
    // The owner without an endpoint: nothing published for it.
    expect(await publishedOwners()).not.toContain(quiet.ownerId);
  });
});
