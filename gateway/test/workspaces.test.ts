// Workspaces through the gateway (docs/adr/0030-workspaces.md): the current workspace per request
// (X-Workspace-Id, the personal one without it), members, invitations with the plan's seat limit, and
// the audit log with the billing actions the gateway starts, over REST and GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutbox } from '@parley/common/mail-outbox.ts';
import { permissionsOf } from '@parley/common/roles.ts';
import { roleLacksPermission, WORKSPACE_NOT_FOUND } from '../src/http/errors.ts';
import { waitFor } from './billing-fixtures.ts';
import { PASSWORD, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, startStack, uniqueEmail, type Stack } from './stack.ts';
import { createTeam, gqlIn, inWorkspace, setMembership, setWorkspacePlan, sql, type Team } from './workspace-fixtures.ts';

let stack: Stack;
let team: Team;

beforeAll(async () => {
  // The test checkout page's events are signed by the gateway's own secret.
  stack = await startStack({ gatewayEnv: { STRIPE_WEBHOOK_SECRET: '' } });
  team = await createTeam(stack, 'workspaces');
});
afterAll(async () => {
  await stack?.close();
});

/** The token of the newest invitation mailed to an address (mailed in the background, so waited for). */
async function invitationToken(email: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const mails = await readOutbox(stack.gatewayEnv.MAIL_OUTBOX_DIR, { limit: 200 });
    const mail = mails.find((m) => m.to.includes(email) && /\/invitations\//.test(m.text));
    const token = mail && /\/invitations\/([A-Za-z0-9_%-]+)/.exec(mail.text)?.[1];
    if (token) return decodeURIComponent(token);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no invitation mailed to ${email}`);
}

describe('the current workspace', () => {
  it('is the personal one without the header, as before workspaces', async () => {
    const owner = await registerOwner(stack, 'personal');
    const rest = await api(stack.url, '/api/workspace', { token: owner.token });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ id: owner.userId, personal: true, role: 'owner', memberCount: 1, seatLimit: 1 });
    expect(rest.body.permissions).toEqual(permissionsOf('owner'));

    const gql = await gqlIn(stack, undefined, owner.token, '{ currentWorkspace { id personal role permissions seatLimit } }');
    expect(gql.body.data.currentWorkspace).toEqual({
      id: owner.userId,
      personal: true,
      role: 'OWNER',
      permissions: permissionsOf('owner'),
      seatLimit: 1,
    });

    const list = await api(stack.url, '/api/workspaces', { token: owner.token });
    expect(list.body.map((w: { id: string }) => w.id)).toEqual([owner.userId]);
  });

  it("keeps each workspace's chatbots apart, and a member sees the team's only in the team", async () => {
    const own = await api(stack.url, '/api/chatbot', { body: { name: 'Mine' }, token: team.owner.token });
    const shared = await inWorkspace(stack, team.id, '/api/chatbot', { body: { name: 'Shared' }, token: team.owner.token });
    expect([own.status, shared.status]).toEqual([201, 201]);

    const names = async (token: string, workspaceId?: string) =>
      (await inWorkspace(stack, workspaceId, '/api/chatbot', { token })).body.map((c: { name: string }) => c.name);
    expect(await names(team.owner.token)).toEqual(['Mine']);
    expect(await names(team.owner.token, team.id)).toEqual(['Shared']);
    expect(await names(team.members.viewer.token)).toEqual([]);
    expect(await names(team.members.viewer.token, team.id)).toEqual(['Shared']);

    // In their own workspace the team's chatbot is nobody's they know of.
    expect((await api(stack.url, `/api/chatbot/${shared.body._id}`, { token: team.members.editor.token })).status).toBe(404);
    // A viewer's list shows no open questions (they read no conversations), without an error.
    const viewed = await gqlIn(stack, team.id, team.members.viewer.token, '{ chatbots { name openUnansweredQuestions } }');
    expect(viewed.body).toEqual({ data: { chatbots: [{ name: 'Shared', openUnansweredQuestions: 0 }] } });
    const gql = await gqlIn(stack, team.id, team.members.editor.token, 'query($id: ID!) { chatbot(id: $id) { name } }', {
      id: shared.body._id,
    });
    expect(gql.body.data.chatbot.name).toBe('Shared');
  });

  it('answers 404 for a workspace the person is not a member of, or a header that names none', async () => {
    const stranger = await registerOwner(stack, 'stranger');
    for (const header of [team.id, 'not-a-workspace', '../../etc', 'x'.repeat(500)]) {
      const res = await inWorkspace(stack, header, '/api/chatbot', { token: stranger.token });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(WORKSPACE_NOT_FOUND);
    }
    const gql = await gqlIn(stack, team.id, stranger.token, '{ chatbots { id } }');
    expect(gql.body.errors[0]).toMatchObject({ message: WORKSPACE_NOT_FOUND, extensions: { code: 'NOT_FOUND' } });
    // The person's own things ignore the header.
    expect((await inWorkspace(stack, team.id, '/api/user/sessions', { token: stranger.token })).status).toBe(200);
  });

  it('is none for a person who gave their personal workspace away and left it: only their own paths answer', async () => {
    const leaving = await registerOwner(stack, 'gave-away');
    const heir = await registerOwner(stack, 'heir');
    await setMembership(stack, leaving.userId, heir.userId, 'admin');
    const transferred = await api(stack.url, '/api/workspace/transfer', { body: { userId: heir.userId }, token: leaving.token });
    expect(transferred.status).toBe(200);
    expect((await api(stack.url, '/api/workspace/leave', { method: 'POST', token: leaving.token })).status).toBe(200);

    const chatbots = await api(stack.url, '/api/chatbot', { token: leaving.token });
    expect(chatbots.status).toBe(404);
    expect(chatbots.body.message).toBe(WORKSPACE_NOT_FOUND);
    expect((await api(stack.url, '/api/auth/current', { token: leaving.token })).status).toBe(200);
    expect((await api(stack.url, '/api/workspaces', { token: leaving.token })).body).toEqual([]);
    const exported = await (await fetch(`${stack.url}/api/user/export`, { headers: { authorization: `Bearer ${leaving.token}` } })).json();
    expect(exported).toMatchObject({ billing: null, chatbots: [], workspaces: [], usageRecords: [] });
    // The heir owns it now.
    expect((await inWorkspace(stack, leaving.userId, '/api/workspace', { token: heir.token })).body).toMatchObject({
      role: 'owner',
      personal: true,
    });
  });

  it('shows a person who gave their pro workspace away and left it neither its plan, nor its credit, nor its name', async () => {
    const giver = await registerOwner(stack, 'giver');
    const heir = await registerOwner(stack, 'heir-pro');
    const name = `Giver's pro team ${giver.userId.slice(0, 8)}`;
    expect((await api(stack.url, '/api/workspace', { method: 'PATCH', body: { name }, token: giver.token })).status).toBe(200);
    // Pro with credit topped up, as a paid checkout and a top-up leave it.
    await setWorkspacePlan(stack, giver, giver.userId, 'pro');
    await sql(
      stack.billingDatabase,
      `UPDATE $schema."Account" SET "creditBalance" = 7.25, "lastCreditRefill" = now() WHERE "userId" = $1`,
      [giver.userId],
    );
    const before = await api(stack.url, '/api/auth/current', { token: giver.token });
    expect(before.body).toMatchObject({ subscription: 'pro', usage: { creditBalance: 7.25 } });

    // Invited by mail, the heir accepts, becomes owner; the giver leaves.
    const invited = await api(stack.url, '/api/workspace/invitations', { body: { email: heir.email, role: 'admin' }, token: giver.token });
    expect(invited.status).toBe(201);
    const link = await invitationToken(heir.email);
    const accepted = await api(stack.url, `/api/invitations/${encodeURIComponent(link)}/accept`, { method: 'POST', token: heir.token });
    expect(accepted.status).toBe(200);
    const transferred = await api(stack.url, '/api/workspace/transfer', { body: { userId: heir.userId }, token: giver.token });
    expect(transferred.status).toBe(200);
    expect((await api(stack.url, '/api/workspace/leave', { method: 'POST', token: giver.token })).status).toBe(200);

    // The same fields, with what a workspace with nothing would show, with or without the old header.
    const neutral = { subscription: 'free', usage: { creditBalance: 0, lastCreditRefill: null } };
    for (const header of [undefined, giver.userId, 'not-a-workspace']) {
      const current = await inWorkspace(stack, header, '/api/auth/current', { token: giver.token });
      expect(current.status).toBe(200);
      expect(current.body).toEqual({ id: giver.userId, _id: giver.userId, email: giver.email, name: '', ...neutral });
      const me = await gqlIn(stack, header, giver.token, '{ me { id email name subscription usage { creditBalance lastCreditRefill } } }');
      expect(me.body).toEqual({
        data: {
          me: {
            id: giver.userId,
            email: giver.email,
            name: '',
            subscription: 'free',
            usage: { creditBalance: '0', lastCreditRefill: null },
          },
        },
      });
      const lists = await gqlIn(stack, header, giver.token, '{ workspaces { id name } }');
      expect(lists.body).toEqual({ data: { workspaces: [] } });
      const current2 = await gqlIn(stack, header, giver.token, '{ currentWorkspace { name } }');
      expect(current2.body.errors[0]).toMatchObject({ message: WORKSPACE_NOT_FOUND, extensions: { code: 'NOT_FOUND' } });
      expect(JSON.stringify([current.body, me.body, lists.body, current2.body])).not.toContain(name);
    }
    expect((await api(stack.url, '/api/workspaces', { token: giver.token })).body).toEqual([]);
    // Signing in again, and the answers of a profile change, show no more.
    const login = await api(stack.url, '/api/auth/login', { body: { email: giver.email, password: PASSWORD } });
    expect(login.body.user).toMatchObject(neutral);
    const gqlLogin = await gqlIn(
      stack,
      giver.userId,
      '',
      'mutation($input: LoginInput!) { login(input: $input) { user { subscription usage { creditBalance lastCreditRefill } } } }',
      { input: { email: giver.email, password: PASSWORD } },
    );
    expect(gqlLogin.body.data.login.user).toEqual({ subscription: 'free', usage: { creditBalance: '0', lastCreditRefill: null } });
    const renamed = await api(stack.url, '/api/user/profile', { method: 'PUT', body: { name: 'Giver' }, token: giver.token });
    expect(renamed.body).toMatchObject({ name: 'Giver', ...neutral });
    const gqlRenamed = await gqlIn(
      stack,
      undefined,
      giver.token,
      'mutation { updateProfile(name: "Giver") { subscription usage { creditBalance } } }',
    );
    expect(gqlRenamed.body.data.updateProfile).toEqual({ subscription: 'free', usage: { creditBalance: '0' } });

    // The heir still sees the workspace, its plan and its credit.
    const heirs = await inWorkspace(stack, giver.userId, '/api/auth/current', { token: heir.token });
    expect(heirs.body).toMatchObject({ subscription: 'pro', usage: { creditBalance: 7.25 } });
    const heirsMe = await gqlIn(
      stack,
      giver.userId,
      heir.token,
      '{ me { subscription usage { creditBalance } } workspaces { name role } }',
    );
    expect(heirsMe.body.data.me).toEqual({ subscription: 'pro', usage: { creditBalance: '7.25' } });
    expect(heirsMe.body.data.workspaces).toContainEqual({ name, role: 'OWNER' });

    // A workspace the giver creates is the one they act in at once, without the header.
    const created = await api(stack.url, '/api/workspaces', { body: { name: 'Fresh start' }, token: giver.token });
    expect(created.status).toBe(201);
    const fresh = await gqlIn(stack, undefined, giver.token, '{ me { subscription } currentWorkspace { id name } }');
    expect(fresh.body.data).toEqual({ me: { subscription: 'free' }, currentWorkspace: { id: created.body.id, name: 'Fresh start' } });
  });

  it("refuses a role without the permission with 403 and the role's message", async () => {
    const res = await inWorkspace(stack, team.id, '/api/chatbot', { body: { name: 'Nope' }, token: team.members.viewer.token });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(roleLacksPermission('chatbots:write'));
    expect(res.body.message).toBe('Only an editor or above in this workspace can change chatbots and their knowledge.');
    const checkout = await gqlIn(
      stack,
      team.id,
      team.members.admin.token,
      'mutation { createCheckoutSession(input: { mode: "subscription" }) { url } }',
    );
    expect(checkout.body.errors[0]).toMatchObject({
      message: 'Only an owner of this workspace can manage the plan and billing.',
      extensions: { code: 'FORBIDDEN', http: { status: 403 } },
    });
  });
});

describe('members and invitations', () => {
  let invitee: Owner;

  it("refuses an invitation past the plan's seats with 403 naming the plan", async () => {
    const small = await registerOwner(stack, 'small-team');
    const created = await api(stack.url, '/api/workspaces', { body: { name: 'Small' }, token: small.token });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Small', personal: false, role: 'owner', seatLimit: 1, memberCount: 1 });
    const res = await inWorkspace(stack, created.body.id, '/api/workspace/invitations', {
      body: { email: uniqueEmail('seat'), role: 'viewer' },
      token: small.token,
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/Free plan allows 1 member/);
  });

  it('invites by REST, previews and accepts the link, and lists the member', async () => {
    await setWorkspacePlan(stack, team.owner, team.id, 'pro');
    const email = uniqueEmail('invitee');
    const invited = await inWorkspace(stack, team.id, '/api/workspace/invitations', {
      body: { email, role: 'editor' },
      token: team.members.admin.token,
    });
    // Five seats on pro: the owner and four members.
    expect(invited.status).toBe(403);
    expect(invited.body.message).toMatch(/Pro plan allows 5 members/);

    const removed = await inWorkspace(stack, team.id, `/api/workspace/members/${team.members.agent.userId}`, {
      method: 'DELETE',
      token: team.members.admin.token,
    });
    expect(removed.status).toBe(200);
    const again = await inWorkspace(stack, team.id, '/api/workspace/invitations', {
      body: { email, role: 'editor' },
      token: team.members.admin.token,
    });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ email, role: 'editor', invitedBy: team.members.admin.email });

    const pending = await inWorkspace(stack, team.id, '/api/workspace/invitations', { token: team.owner.token });
    expect(pending.body.map((i: { email: string }) => i.email)).toEqual([email]);
    // An editor does not manage members.
    const refused = await inWorkspace(stack, team.id, '/api/workspace/invitations', { token: team.members.editor.token });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(roleLacksPermission('members:manage'));

    const token = await invitationToken(email);
    const preview = await api(stack.url, `/api/invitations/${encodeURIComponent(token)}`);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ workspaceName: 'workspaces team', email, role: 'editor' });

    const res = await api(stack.url, '/api/auth/register', { body: { email, password: 'secret-pass', password2: 'secret-pass' } });
    invitee = { email, token: res.body.token, userId: res.body.user.id };
    const accepted = await api(stack.url, `/api/invitations/${encodeURIComponent(token)}/accept`, { method: 'POST', token: invitee.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ id: team.id, role: 'editor', personal: false, seatLimit: 5 });

    const members = await inWorkspace(stack, team.id, '/api/workspace/members', { token: team.members.viewer.token });
    expect(members.status).toBe(200);
    expect(members.body.find((m: { userId: string }) => m.userId === invitee.userId)).toMatchObject({ email, role: 'editor' });

    const changed = await inWorkspace(stack, team.id, `/api/workspace/members/${invitee.userId}`, {
      method: 'PATCH',
      body: { role: 'viewer' },
      token: team.owner.token,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ userId: invitee.userId, role: 'viewer' });
    const badRole = await inWorkspace(stack, team.id, `/api/workspace/members/${invitee.userId}`, {
      method: 'PATCH',
      body: { role: 'superuser' },
      token: team.owner.token,
    });
    expect(badRole.status).toBe(400);
  });

  it('lets a member leave: the workspace is then not found for them', async () => {
    const left = await inWorkspace(stack, team.id, '/api/workspace/leave', { method: 'POST', token: invitee.token });
    expect(left.status).toBe(200);
    const after = await inWorkspace(stack, team.id, '/api/workspace', { token: invitee.token });
    expect(after.status).toBe(404);
    // Their own workspace still answers.
    expect((await api(stack.url, '/api/workspace', { token: invitee.token })).body.personal).toBe(true);
  });

  it('invites, revokes and lists by GraphQL with the role enum', async () => {
    const email = uniqueEmail('gql-invitee');
    const invited = await gqlIn(
      stack,
      team.id,
      team.owner.token,
      'mutation($email: String!) { inviteMember(email: $email, role: AGENT) { id email role invitedBy } }',
      { email },
    );
    expect(invited.body.data.inviteMember).toMatchObject({ email, role: 'AGENT', invitedBy: team.owner.email });
    const listed = await gqlIn(stack, team.id, team.owner.token, '{ invitations { email role } members { email role } }');
    expect(listed.body.data.invitations).toContainEqual({ email, role: 'AGENT' });
    expect(listed.body.data.members).toContainEqual({ email: team.owner.email, role: 'OWNER' });
    const revoked = await gqlIn(stack, team.id, team.owner.token, 'mutation($id: ID!) { revokeInvitation(id: $id) }', {
      id: invited.body.data.inviteMember.id,
    });
    expect(revoked.body.data.revokeInvitation).toBe(true);
    const token = await invitationToken(email);
    const preview = await gqlIn(stack, undefined, '', 'query($token: String!) { invitation(token: $token) { email } }', { token });
    expect(preview.body.errors[0].extensions.http.status).toBe(400);
  });
});

describe('the audit log', () => {
  it('records the checkout the gateway starts, with actor and IP, for owners and admins to read', async () => {
    // The team is on pro already: a credit top-up.
    const checkout = await inWorkspace(stack, team.id, '/api/payment/create-checkout-session', {
      body: { mode: 'payment', metadata: { type: 'credit_topup' } },
      token: team.owner.token,
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(checkout.status).toBe(200);

    const log = await inWorkspace(stack, team.id, '/api/workspace/audit-log?action=billing.&first=10', { token: team.members.admin.token });
    expect(log.status).toBe(200);
    expect(log.body.events[0]).toMatchObject({
      action: 'billing.checkout_started',
      actorEmail: team.owner.email,
      target: 'credit top-up',
      clientIp: '203.0.113.9',
    });
    expect(JSON.parse(log.body.events[0].details)).toEqual({ mode: 'payment' });

    const all = await gqlIn(stack, team.id, team.members.admin.token, '{ auditLog(first: 100) { events { action } nextCursor } }');
    const actions = all.body.data.auditLog.events.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['billing.checkout_started', 'member.invited', 'member.joined', 'member.left']));

    const paged = await inWorkspace(stack, team.id, '/api/workspace/audit-log?first=1', { token: team.owner.token });
    expect(paged.body.events).toHaveLength(1);
    expect(paged.body.nextCursor).toEqual(expect.any(String));
    const next = await inWorkspace(stack, team.id, `/api/workspace/audit-log?first=1&after=${encodeURIComponent(paged.body.nextCursor)}`, {
      token: team.owner.token,
    });
    expect(next.body.events[0].id).not.toBe(paged.body.events[0].id);

    expect((await inWorkspace(stack, team.id, '/api/workspace/audit-log?first=0', { token: team.owner.token })).status).toBe(400);
    expect((await inWorkspace(stack, team.id, '/api/workspace/audit-log?from=yesterday', { token: team.owner.token })).status).toBe(400);
    const refused = await inWorkspace(stack, team.id, '/api/workspace/audit-log', { token: team.members.editor.token });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(roleLacksPermission('audit:read'));
  });

  it("records the subscription's portal opened for the workspace that pays", async () => {
    const paying = await registerOwner(stack, 'paying');
    const created = await api(stack.url, '/api/workspaces', { body: { name: 'Paying' }, token: paying.token });
    const id: string = created.body.id;
    const checkout = await inWorkspace(stack, id, '/api/payment/create-checkout-session', {
      body: { mode: 'subscription' },
      token: paying.token,
    });
    expect(checkout.status).toBe(200);
    const pay = await fetch(`${stack.url}${new URL(checkout.body.url).pathname}/pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(stack.url).origin },
      body: '',
    });
    expect(pay.status).toBe(303);
    const plan = await waitFor(
      async () => (await inWorkspace(stack, id, '/api/workspace', { token: paying.token })).body.seatLimit,
      (seats) => seats === 5,
    );
    expect(plan).toBe(5);
    // The person's own reads show the plan of the workspace they act in: pro there, free in the personal one.
    expect((await inWorkspace(stack, id, '/api/auth/current', { token: paying.token })).body.subscription).toBe('pro');
    expect((await api(stack.url, '/api/auth/current', { token: paying.token })).body.subscription).toBe('free');
    const me = '{ me { subscription usage { creditBalance } } }';
    expect((await inWorkspace(stack, id, '/graphql', { body: { query: me }, token: paying.token })).body.data.me.subscription).toBe('pro');
    // A header naming a workspace the person is not in falls back to the personal one.
    const stranger = await registerOwner(stack, 'stranger');
    expect((await inWorkspace(stack, id, '/api/auth/current', { token: stranger.token })).body.subscription).toBe('free');

    const portal = await inWorkspace(stack, id, '/api/payment/portal-session', { method: 'POST', token: paying.token });
    expect(portal.status).toBe(200);
    const log = await inWorkspace(stack, id, '/api/workspace/audit-log?action=billing.', { token: paying.token });
    expect(log.body.events.map((e: { action: string; target: string }) => `${e.action} ${e.target}`)).toEqual([
      'billing.portal_opened subscription',
      'billing.checkout_started pro',
    ]);
  });

  it('transfers ownership: the member becomes owner and the caller an admin', async () => {
    const moved = await gqlIn(stack, team.id, team.owner.token, 'mutation($userId: ID!) { transferOwnership(userId: $userId) }', {
      userId: team.members.admin.userId,
    });
    expect(moved.body.data.transferOwnership).toBe(true);
    const mine = await gqlIn(stack, team.id, team.owner.token, '{ currentWorkspace { role permissions } }');
    expect(mine.body.data.currentWorkspace).toEqual({ role: 'ADMIN', permissions: permissionsOf('admin') });
    // Billing is the new owner's now.
    const checkout = await inWorkspace(stack, team.id, '/api/payment/create-checkout-session', {
      body: { mode: 'subscription' },
      token: team.owner.token,
    });
    expect(checkout.status).toBe(403);
  });
});

describe("the owner's data export", () => {
  it('covers every workspace the person owns, with its members, audit log, chatbots and plan', async () => {
    // After the transfer above, the team is its former admin's.
    const newOwner = team.members.admin;
    const res = await fetch(`${stack.url}/api/user/export`, {
      headers: { authorization: `Bearer ${newOwner.token}`, 'x-workspace-id': team.id },
    });
    expect(res.status).toBe(200);
    const data = await res.json();
    expect(data.account.id).toBe(newOwner.userId);
    const ids = data.workspaces.map((w: { id: string }) => w.id);
    expect(ids).toEqual(expect.arrayContaining([newOwner.userId, team.id]));
    const exported = data.workspaces.find((w: { id: string }) => w.id === team.id);
    expect(exported).toMatchObject({ name: 'workspaces team', personal: false, billing: { subscription: 'pro' } });
    expect(exported.chatbots.map((c: { name: string }) => c.name)).toEqual(['Shared']);
    expect(exported.members.map((m: { userId: string }) => m.userId)).toContain(newOwner.userId);
    expect(exported.auditLog.map((e: { action: string }) => e.action)).toContain('billing.checkout_started');

    // The former owner, now an admin, exports only their own.
    const former = await (await fetch(`${stack.url}/api/user/export`, { headers: { authorization: `Bearer ${team.owner.token}` } })).json();
    expect(former.workspaces.map((w: { id: string }) => w.id)).not.toContain(team.id);
  });
});
