import { Code } from '@parley/common/rpc-errors.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSessionToken } from '../../src/core/session-token.ts';
import { expectRpcError, startAuth, uniqueEmail, type AuthHarness } from './harness.ts';

const EXPIRED = 'Session expired. Please login again.';

let h: AuthHarness;
let short: AuthHarness;
beforeAll(async () => {
  [h, short] = await Promise.all([startAuth(), startAuth({ SESSION_TTL_SECONDS: '1' })]);
});
afterAll(async () => {
  await Promise.all([h?.close(), short?.close()]);
});

async function signUp(harness: AuthHarness) {
  const email = uniqueEmail('session');
  return harness.client.register({ email, password: 'secret1', passwordConfirmation: 'secret1', name: 'Session User' });
}

describe('Authenticate', () => {
  it('resolves a live token to its user', async () => {
    const reg = await signUp(h);
    const res = await h.client.authenticate({ token: reg.token });
    expect(res.user).toMatchObject({ id: reg.user!.id, email: reg.user!.email, name: 'Session User' });
    expect(res.user?.createdAt).toBeDefined();
  });

  it('refuses empty, forged and tampered tokens', async () => {
    const reg = await signUp(h);
    await expectRpcError(h.client.authenticate({ token: '' }), Code.Unauthenticated, EXPIRED);
    await expectRpcError(h.client.authenticate({ token: newSessionToken() }), Code.Unauthenticated, EXPIRED);
    await expectRpcError(h.client.authenticate({ token: 'not a token at all' }), Code.Unauthenticated, EXPIRED);
    const tampered = (reg.token[0] === 'A' ? 'B' : 'A') + reg.token.slice(1);
    await expectRpcError(h.client.authenticate({ token: tampered }), Code.Unauthenticated, EXPIRED);
    // The stored hash is not a token either.
    const session = await h.db.session.findFirstOrThrow({ where: { userId: reg.user!.id } });
    await expectRpcError(h.client.authenticate({ token: session.tokenHash }), Code.Unauthenticated, EXPIRED);
  });

  it('refuses a session whose expiry has passed', async () => {
    const reg = await signUp(h);
    await h.db.session.updateMany({ where: { userId: reg.user!.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectRpcError(h.client.authenticate({ token: reg.token }), Code.Unauthenticated, EXPIRED);
  });

  it('lets sessions expire after SESSION_TTL_SECONDS', async () => {
    const reg = await signUp(short);
    expect((await short.client.authenticate({ token: reg.token })).user?.id).toBe(reg.user!.id);
    await new Promise((r) => setTimeout(r, 1100));
    await expectRpcError(short.client.authenticate({ token: reg.token }), Code.Unauthenticated, EXPIRED);
  });
});

describe('Logout', () => {
  it('revokes the session, so the token no longer authenticates', async () => {
    const reg = await signUp(h);
    const login = await h.client.login({ email: reg.user!.email, password: 'secret1', clientIp: '192.0.2.1' });
    await h.client.logout({ token: reg.token });

    await expectRpcError(h.client.authenticate({ token: reg.token }), Code.Unauthenticated, EXPIRED);
    const revoked = await h.db.session.findMany({ where: { userId: reg.user!.id, revokedAt: { not: null } } });
    expect(revoked).toHaveLength(1);
    // Other sessions of the same user stay signed in.
    expect((await h.client.authenticate({ token: login.token })).user?.id).toBe(reg.user!.id);
  });

  it('succeeds silently for empty, unknown and already revoked tokens', async () => {
    const reg = await signUp(h);
    await h.client.logout({ token: reg.token });
    const firstRevokedAt = (await h.db.session.findFirstOrThrow({ where: { userId: reg.user!.id } })).revokedAt;
    expect(await h.client.logout({ token: reg.token })).toBeDefined();
    expect(await h.client.logout({ token: '' })).toBeDefined();
    expect(await h.client.logout({ token: newSessionToken() })).toBeDefined();
    // A second logout does not move the revocation time.
    expect((await h.db.session.findFirstOrThrow({ where: { userId: reg.user!.id } })).revokedAt).toEqual(firstRevokedAt);
  });
});
