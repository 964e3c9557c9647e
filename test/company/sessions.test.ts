import { describe, expect, it } from 'vitest';
import { ALEX, Clock, EXCHANGE_M, EXCHANGE_PATH, GUEST, GUEST_EXCHANGE, GUEST_PATH, SAM, get, openConversation, operationFor, post, request, startCompany } from './helpers';

// The simplified core checks of the reference Company (src/company/session.ts; docs/reference-company.md,
// "Sessions"): they come before section 6's checks ("After the Session header checks in spec 5.3 and
// the token checks in spec 7").

function jwt(payload: Record<string, unknown>): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ typ: 'poppy-session+jwt', alg: 'EdDSA' })}.${part(payload)}.c2lnbmF0dXJl`;
}

describe('reference Company: Sessions and tokens (simplified core 5.3 and 7)', () => {
  it('refuses a request without Poppy-Session (403 invalid_session) or with another Poppy-Version (400)', async () => {
    const company = await startCompany(new Clock());
    const noSession = await fetch(`${company.url}${EXCHANGE_PATH}`, { method: 'POST', headers: { 'Poppy-Version': '0.4' }, body: '{}' });
    expect(noSession.status).toBe(403);
    expect(await noSession.json()).toMatchObject({ error: 'invalid_session' });
    const oldVersion = await post(company, EXCHANGE_PATH, { ...ALEX, headers: { 'Poppy-Version': '0.3' } }, EXCHANGE_M);
    expect(oldVersion.status).toBe(400);
    expect(oldVersion.body.error).toBe('unsupported_version');
    const mcp = await fetch(`${company.url}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(mcp.status).toBe(400);
  });

  it('refuses an unknown access token with 401 and WWW-Authenticate', async () => {
    const company = await startCompany(new Clock());
    const reply = await post(company, EXCHANGE_PATH, { ...ALEX, token: 'tok_nobody' }, EXCHANGE_M);
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it("hides another account's order (404) and challenges a signed-out Session for an account's order (401)", async () => {
    const company = await startCompany(new Clock());
    expect((await post(company, EXCHANGE_PATH, SAM, EXCHANGE_M)).status).toBe(404);
    const signedOut = await post(company, EXCHANGE_PATH, GUEST, EXCHANGE_M);
    expect(signedOut.status).toBe(401);
    expect(signedOut.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await get(company, '/orders/ord_7Hk2', ALEX)).status).toBe(200);
    expect((await get(company, '/orders/ord_G5xa', GUEST)).status).toBe(200);
  });

  it('takes the sid claim of a JWT-shaped Poppy-Session as the Session, so per-request JWTs keep one Session', async () => {
    const company = await startCompany(new Clock());
    const operation = await operationFor(company, GUEST_PATH, { session: jwt({ sid: 'ses_A', iat: 1 }) }, GUEST_EXCHANGE);
    const otherSession = await post(company, GUEST_PATH, { session: jwt({ sid: 'ses_B', iat: 2 }), approval: operation }, GUEST_EXCHANGE);
    expect(otherSession.status).toBe(403);
    const sameSession = await post(company, GUEST_PATH, { session: jwt({ sid: 'ses_A', iat: 3 }), approval: operation }, GUEST_EXCHANGE);
    expect(sameSession.status).toBe(200);
  });

  it('lets only the Session or account that opened a conversation use it', async () => {
    const company = await startCompany(new Clock());
    const conversation = await openConversation(company, GUEST);
    expect((await request(company, 'GET', `/conversations/${conversation}/events`, GUEST)).status).toBe(200);
    expect((await request(company, 'GET', `/conversations/${conversation}/events`, { session: 'sess_someone_else' })).status).toBe(404);
  });
});
