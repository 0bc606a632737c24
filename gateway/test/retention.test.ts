// A workspace's retention windows through GraphQL (docs/product.md, Data retention), against the real
// services: read forever, previewed before saving (the preview counts the workspace's own
// conversations past the window), saved and audited with the counts, a window outside 7 to 36,500
// days a clear BAD_USER_INPUT, and owners and admins only (an editor gets FORBIDDEN).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './stack.ts';
import { createTeam, gqlIn, inWorkspace, sql, type Team } from './workspace-fixtures.ts';

let stack: Stack;
let team: Team;
beforeAll(async () => {
  stack = await startStack();
  team = await createTeam(stack, 'retention');
});
afterAll(async () => {
  await stack?.close();
});

const WINDOWS = 'conversationDays leadDays usageDetailDays webhookDeliveryDays analyticsDays';
const FOREVER = { conversationDays: null, leadDays: null, usageDetailDays: null, webhookDeliveryDays: null, analyticsDays: null };
const NOTHING = { usageRecords: 0, webhookDeliveries: 0, analyticsDays: 0, questionGroups: 0 };
const gq = (token: string, query: string, variables: Record<string, unknown> = {}) => gqlIn(stack, team.id, token, query, variables);

describe('data retention', () => {
  it('reads forever, previews, saves and audits the windows', async () => {
    const read = await gq(team.owner.token, `{ retention { ${WINDOWS} } }`);
    expect(read.body.data.retention).toEqual(FOREVER);

    // Two conversations of the workspace, one quiet for 40 days, with its messages.
    const old = '00000000-0000-4000-8000-0000000000a1';
    const recent = '00000000-0000-4000-8000-0000000000a2';
    for (const [id, days] of [
      [old, 40],
      [recent, 1],
    ] as const) {
      await sql(
        stack.chatDatabase,
        `INSERT INTO $schema."Conversation" ("id", "chatbotId", "ownerId", "sessionId", "messageCount", "updatedAt")
         VALUES ($1::uuid, gen_random_uuid(), $2, $1::text, 2, now() - make_interval(days => $3::int))`,
        [id, team.id, days],
      );
      await sql(
        stack.chatDatabase,
        `INSERT INTO $schema."Message" ("conversationId", "role", "content") VALUES ($1, 'user', 'hi'), ($1, 'assistant', 'hello')`,
        [id],
      );
    }
    // A usage record of 40 days ago (billing) and a delivery last attempted 20 days ago (chatbot service).
    await sql(
      stack.billingDatabase,
      `INSERT INTO $schema."Account" ("userId", "creditBalance", "updatedAt") VALUES ($1, 5, now()) ON CONFLICT DO NOTHING`,
      [team.id],
    );
    await sql(
      stack.billingDatabase,
      `INSERT INTO $schema."UsageRecord" ("id", "requestId", "userId", "chatbotId", "chatbotName", "model", "promptTokens",
         "completionTokens", "totalTokens", "promptCost", "completionCost", "totalCost", "occurredAt")
       VALUES (gen_random_uuid(), 'retention-old', $1, 'bot', 'Bot', 'gpt-4o-mini', 10, 10, 20, 0, 0, 0, now() - interval '40 days')`,
      [team.id],
    );
    const [endpoint] = await sql(
      stack.chatbotDatabase,
      `INSERT INTO $schema."WebhookEndpoint" ("id", "ownerId", "url", "events", "secret")
       VALUES (gen_random_uuid(), $1, 'https://hooks.example.com/x', ARRAY['lead.created'], 'whsec_x') RETURNING "id"`,
      [team.id],
    );
    await sql(
      stack.chatbotDatabase,
      `INSERT INTO $schema."WebhookDelivery" ("id", "endpointId", "eventId", "eventType", "payload", "status", "createdAt", "lastAttemptAt")
       VALUES ('msg_retention', $1::uuid, 'ev', 'lead.created', '{}', 'succeeded', now() - interval '20 days', now() - interval '20 days')`,
      [endpoint.id],
    );
    const every = await gq(
      team.members.admin.token,
      `query($i: RetentionInput!) { retentionPreview(input: $i) { conversations messages leads usageRecords webhookDeliveries analyticsDays questionGroups } }`,
      { i: { conversationDays: 30, usageDetailDays: 30, webhookDeliveryDays: 14, analyticsDays: 7 } },
    );
    expect(every.body.data.retentionPreview).toEqual({
      ...NOTHING,
      conversations: 1,
      messages: 2,
      leads: 0,
      usageRecords: 1,
      webhookDeliveries: 1,
    });

    const preview = await gq(
      team.members.admin.token,
      `query($i: RetentionInput!) { retentionPreview(input: $i) { conversations messages leads usageRecords webhookDeliveries analyticsDays questionGroups } }`,
      {
        i: { conversationDays: 30 },
      },
    );
    expect(preview.body.data.retentionPreview).toEqual({ conversations: 1, messages: 2, leads: 0, ...NOTHING });

    const saved = await gq(team.owner.token, `mutation($i: RetentionInput!) { setRetention(input: $i) { ${WINDOWS} } }`, {
      i: { conversationDays: 30, leadDays: 90, usageDetailDays: 30, webhookDeliveryDays: 14 },
    });
    const after = { ...FOREVER, conversationDays: 30, leadDays: 90, usageDetailDays: 30, webhookDeliveryDays: 14 };
    expect(saved.body.data.setRetention).toEqual(after);
    expect((await gq(team.owner.token, `{ retention { ${WINDOWS} } }`)).body.data.retention).toEqual(after);

    const log = await inWorkspace(stack, team.id, '/api/workspace/audit-log', { token: team.owner.token });
    const entry = (log.body.events as { action: string; details: string }[]).find((e) => e.action === 'workspace.retention_changed')!;
    expect(JSON.parse(entry.details)).toEqual({
      before: FOREVER,
      after,
      pastTheWindows: { ...NOTHING, conversations: 1, messages: 2, leads: 0, usageRecords: 1, webhookDeliveries: 1 },
    });
  });

  it('refuses a window outside 7 to 36,500 days, and a member below admin', async () => {
    const tooShort = await gq(team.owner.token, `mutation { setRetention(input: { conversationDays: 3 }) { ${WINDOWS} } }`);
    expect(tooShort.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(tooShort.body.errors[0].message).toBe('A retention window is 7 to 36,500 days, or forever.');
    // A bad window of another service is refused before any window is changed.
    const before = (await gq(team.owner.token, `{ retention { ${WINDOWS} } }`)).body.data.retention;
    const badUsage = await gq(
      team.owner.token,
      `mutation { setRetention(input: { conversationDays: 60, usageDetailDays: 36501 }) { ${WINDOWS} } }`,
    );
    expect(badUsage.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect((await gq(team.owner.token, `{ retention { ${WINDOWS} } }`)).body.data.retention).toEqual(before);
    const editor = await gq(team.members.editor.token, `{ retention { ${WINDOWS} } }`);
    expect(editor.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
