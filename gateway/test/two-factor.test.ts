// Two-factor sign-in through the gateway (docs/product.md, Two-factor sign-in): the account page's
// calls and the two steps of a sign-in over REST and GraphQL, and a workspace that requires it
// refusing members without it with 403 TWO_FACTOR_REQUIRED, against the real auth service.
import { totpCode } from '@parley/auth/two-factor/totp.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, registerOwner, type Owner } from './chatbot-fixtures.ts';
import { api, gql, startStack, type Stack } from './stack.ts';
import { createTeam, gqlIn, inWorkspace } from './workspace-fixtures.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const codeAt = (secret: string, steps = 0) => totpCode(secret, new Date(Date.now() + steps * 30_000));

/** Turns two-factor sign-in on through REST, as the account page's calls do; the code used is of the current step. */
async function enrol(owner: Owner): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await api(stack.url, '/api/user/two-factor/enrolment', { method: 'POST', token: owner.token });
  expect(started.status).toBe(200);
  expect(started.body.otpauthUri).toMatch(/^otpauth:\/\/totp\/Parley:/);
  const confirmed = await api(stack.url, '/api/user/two-factor/enrolment/confirm', {
    body: { code: codeAt(started.body.secret) },
    token: owner.token,
  });
  expect(confirmed.status).toBe(200);
  return { secret: started.body.secret, recoveryCodes: confirmed.body.recoveryCodes };
}

describe('REST', () => {
  it('enrols from the account, then signs in in two steps', async () => {
    const owner = await registerOwner(stack, 'tf-rest');
    expect((await api(stack.url, '/api/user/two-factor', { token: owner.token })).body).toEqual({ enabled: false, recoveryCodesLeft: 0 });
    const { secret, recoveryCodes } = await enrol(owner);
    expect(recoveryCodes).toHaveLength(10);
    expect((await api(stack.url, '/api/user/two-factor', { token: owner.token })).body).toEqual({ enabled: true, recoveryCodesLeft: 10 });

    const first = await api(stack.url, '/api/auth/login', { body: { email: owner.email, password: PASSWORD } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ twoFactorRequired: true, challengeToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });

    const wrong = await api(stack.url, '/api/auth/login/two-factor', {
      body: { challengeToken: first.body.challengeToken, code: 'zzzzz-zzzzz' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toMatch(/^That code is not right/);

    const second = await api(stack.url, '/api/auth/login/two-factor', {
      body: { challengeToken: first.body.challengeToken, code: codeAt(secret, 1) },
    });
    expect(second.status).toBe(200);
    expect(second.body.user.email).toBe(owner.email);
    expect((await api(stack.url, '/api/auth/current', { token: second.body.token })).status).toBe(200);

    const missing = await api(stack.url, '/api/auth/login/two-factor', { body: { challengeToken: first.body.challengeToken } });
    expect(missing.status).toBe(400);

    const disabled = await api(stack.url, '/api/user/two-factor', {
      method: 'DELETE',
      body: { password: PASSWORD, code: recoveryCodes[0] },
      token: owner.token,
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({ message: 'Two-factor sign-in is off.' });
    expect((await api(stack.url, '/api/auth/login', { body: { email: owner.email, password: PASSWORD } })).body.token).toEqual(
      expect.any(String),
    );
  });
});

describe('GraphQL', () => {
  it('answers a challenge to login and the session to completeTwoFactorLogin', async () => {
    const owner = await registerOwner(stack, 'tf-gql');
    const started = await gql(stack.url, 'mutation { startTwoFactorEnrolment { otpauthUri secret } }', {}, owner.token);
    const { secret } = started.body.data.startTwoFactorEnrolment;
    const confirmed = await gql(
      stack.url,
      'mutation ($code: String!) { confirmTwoFactorEnrolment(code: $code) }',
      { code: codeAt(secret) },
      owner.token,
    );
    expect(confirmed.body.data.confirmTwoFactorEnrolment).toHaveLength(10);
    const me = await gql(stack.url, '{ me { twoFactorEnabled } myTwoFactor { enabled recoveryCodesLeft } }', {}, owner.token);
    expect(me.body.data).toEqual({ me: { twoFactorEnabled: true }, myTwoFactor: { enabled: true, recoveryCodesLeft: 10 } });

    const login = await gql(
      stack.url,
      'mutation ($input: LoginInput!) { login(input: $input) { token user { email } twoFactorChallenge } }',
      {
        input: { email: owner.email, password: PASSWORD },
      },
    );
    expect(login.body.data.login).toEqual({ token: null, user: null, twoFactorChallenge: expect.any(String) });
    const complete = (code: string) =>
      gql(stack.url, 'mutation ($input: CompleteTwoFactorLoginInput!) { completeTwoFactorLogin(input: $input) { token user { email } } }', {
        input: { challengeToken: login.body.data.login.twoFactorChallenge, code },
      });
    const wrong = await complete('000000' === codeAt(secret, 1) ? '111111' : '000000');
    expect(wrong.body.errors[0].extensions).toEqual({ code: 'UNAUTHENTICATED', http: { status: 401 } });
    const done = await complete(codeAt(secret, 1));
    expect(done.body.data.completeTwoFactorLogin.user.email).toBe(owner.email);
  });
});

describe('A workspace that requires two-factor sign-in', () => {
  it('refuses members without it with 403 TWO_FACTOR_REQUIRED until they turn it on', async () => {
    const team = await createTeam(stack, 'tf-ws');
    const editor = team.members.editor;

    const early = await inWorkspace(stack, team.id, '/api/workspace/require-two-factor', {
      method: 'PUT',
      body: { enabled: true },
      token: team.owner.token,
    });
    expect(early.status).toBe(400);
    expect(early.body.message).toBe('Turn on two-factor sign-in for your own account first.');
    await enrol(team.owner);
    const turnedOn = await inWorkspace(stack, team.id, '/api/workspace/require-two-factor', {
      method: 'PUT',
      body: { enabled: true },
      token: team.owner.token,
    });
    expect(turnedOn.status).toBe(200);
    expect(turnedOn.body.requireTwoFactor).toBe(true);

    const refused = await inWorkspace(stack, team.id, '/api/chatbot', { token: editor.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      message: 'This workspace requires two-factor sign-in. Turn it on in your account to continue.',
      code: 'TWO_FACTOR_REQUIRED',
    });
    const refusedGql = await gqlIn(stack, team.id, editor.token, '{ chatbots { id } }');
    expect(refusedGql.body.errors[0].extensions).toEqual({ code: 'TWO_FACTOR_REQUIRED', http: { status: 403 } });
    // Their own pages still work, so they can set it up; the list says which workspace asks for it.
    const workspaces = await api(stack.url, '/api/workspaces', { token: editor.token });
    expect(workspaces.status).toBe(200);
    expect(workspaces.body.find((w: { id: string }) => w.id === team.id).requireTwoFactor).toBe(true);
    expect((await api(stack.url, '/api/user/two-factor', { token: editor.token })).status).toBe(200);

    await enrol(editor);
    expect((await inWorkspace(stack, team.id, '/api/chatbot', { token: editor.token })).status).toBe(200);
    // The owner, who has it, was never refused.
    expect((await inWorkspace(stack, team.id, '/api/chatbot', { token: team.owner.token })).status).toBe(200);
  });
});
