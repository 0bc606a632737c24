// What the workspace tests share: people signed up through Register, members added through the
// service's own invitations, and the links read from the mails they received.
import { readOutbox } from '@parley/common/mail-outbox.ts';
import type { Role } from '@parley/common/roles.ts';
import { expect } from 'vitest';
import { uniqueEmail, type AuthHarness } from './harness.ts';

export interface Person {
  id: string;
  email: string;
  token: string;
  password: string;
}

/** A harness for the workspace tests: sign-ups are not throttled (each test signs several people up). */
export const WORKSPACE_ENV = { REGISTRATIONS_MAX_PER_IP: '100000' };

export async function signUp(h: AuthHarness, name = 'Ada'): Promise<Person> {
  const password = 'secret1';
  const res = await h.client.register({
    email: uniqueEmail(name.toLowerCase()),
    password,
    passwordConfirmation: password,
    name,
    clientIp: '203.0.113.1',
  });
  return { id: res.user!.id, email: res.user!.email, token: res.token, password };
}

export const actor = (person: Person, workspaceId: string) => ({ userId: person.id, workspaceId, clientIp: '198.51.100.7' });

/** The invitation link's token in the newest mail to `email`. */
export async function invitationToken(h: AuthHarness, email: string): Promise<string> {
  await h.parts.deps.notices.settled();
  const mail = (await readOutbox(h.outboxDir, { limit: 1000 })).find((m) => m.to.includes(email));
  expect(mail, `a mail to ${email}`).toBeDefined();
  const token = /\/invitations\/([A-Za-z0-9_-]{43})/.exec(mail!.text)?.[1];
  expect(token).toBeDefined();
  return token!;
}

/** Invites `person` to the workspace with `role` and has them accept, as the product does. */
export async function join(h: AuthHarness, owner: Person, workspaceId: string, person: Person, role: Role): Promise<void> {
  await h.workspaces.createInvitation({ actor: actor(owner, workspaceId), email: person.email, role, seatLimit: 100, plan: 'pro' });
  const token = await invitationToken(h, person.email);
  await h.workspaces.acceptInvitation({ token, userId: person.id, clientIp: '198.51.100.8', seatLimit: 100, plan: 'pro' });
}

/** A new workspace owned by `owner`, with one member per role given. */
export async function team(h: AuthHarness, roles: Role[] = []): Promise<{ owner: Person; workspaceId: string; members: Person[] }> {
  const owner = await signUp(h, 'Owner');
  const { workspace } = await h.workspaces.createWorkspace({ userId: owner.id, name: 'Acme', clientIp: '198.51.100.7' });
  const members: Person[] = [];
  for (const role of roles) {
    const person = await signUp(h, role);
    await join(h, owner, workspace!.id, person, role);
    members.push(person);
  }
  return { owner, workspaceId: workspace!.id, members };
}
