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

const WINDOWS = 'conversationDays leadDays';
const gq = (token: string, query: string, variables: Record<string, unknown> = {}) => gqlIn(stack, team.id, token, query, variables);

describe('data retention', () => {
  it('reads forever, previews, saves and audits the windows', async () => {
    const read = await gq(team.owner.token, `{ retention { ${WINDOWS} } }`);
    expect(read.body.data.retention).toEqual({ conversationDays: null, leadDays: null });

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
    const preview = await gq(
      team.members.admin.token,
      `query($i: RetentionInput!) { retentionPreview(input: $i) { conversations messages leads } }`,
      {
        i: { conversationDays: 30 },
      },
    );
    expect(preview.body.data.retentionPreview).toEqual({ conversations: 1, messages: 2, leads: 0 });

    const saved = await gq(team.owner.token, `mutation($i: RetentionInput!) { setRetention(input: $i) { ${WINDOWS} } }`, {
      i: { conversationDays: 30, leadDays: 90 },
    });
    expect(saved.body.data.setRetention).toEqual({ conversationDays: 30, leadDays: 90 });
    expect((await gq(team.owner.token, `{ retention { ${WINDOWS} } }`)).body.data.retention).toEqual({
      conversationDays: 30,
      leadDays: 90,
    });

    const log = await inWorkspace(stack, team.id, '/api/workspace/audit-log', { token: team.owner.token });
    const entry = (log.body.events as { action: string; details: string }[]).find((e) => e.action === 'workspace.retention_changed')!;
    expect(JSON.parse(entry.details)).toEqual({
      before: { conversationDays: null, leadDays: null },
      after: { conversationDays: 30, leadDays: 90 },
      pastTheWindows: { conversations: 1, messages: 2, leads: 0 },
    });
  });

  it('refuses a window outside 7 to 36,500 days, and a member below admin', async () => {
    const tooShort = await gq(team.owner.token, `mutation { setRetention(input: { conversationDays: 3 }) { ${WINDOWS} } }`);
    expect(tooShort.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(tooShort.body.errors[0].message).toBe('A retention window is 7 to 36,500 days, or forever.');
    const editor = await gq(team.members.editor.token, `{ retention { ${WINDOWS} } }`);
    expect(editor.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
