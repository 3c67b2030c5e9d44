// Decision 0028's open race, closed (issue 27): a token issued by an app token while that token is
// being revoked is revoked with it, and an issuance after the revocation is refused. The issuance
// is held inside its transaction, after it took its issuer, by a lock on the merchant's row (the
// new token's foreign key waits for it); the revocation then starts and must wait for it.
import { bearer, eventually, requestJson, useSuite, whileHolding, type Credentials } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  // the gateway's cache keeps a credential it authenticated for a minute: the second case needs a
  // revoked issuer the authenticator still takes, so that the issuance itself must refuse it
  variables: { APP_TOKEN_CACHE_TTL_MS: '60000' },
  gateway: createGatewayApp,
  merchants: { shop: { label: 'revocation-race' } },
});

beforeAll(async () => {
  // the gateway's cache keeps a credential it authenticated for a minute: the second case needs a
  // revoked issuer the authenticator still takes, so that the issuance itself must refuse it
});

interface Issued extends Credentials {
  id: string;
}

async function issueWith(issuer: Credentials) {
  return requestJson(suite.url, `/stores/${suite.merchants.shop.store.id}/app_jwts`, {
    method: 'POST',
    auth: bearer(issuer),
    json: {},
  });
}

const revoke = (who: Credentials, id: string) =>
  requestJson(suite.url, `/stores/${suite.merchants.shop.store.id}/app_jwts/${id}`, {
    method: 'DELETE',
    auth: bearer(who),
  });

const isActive = async (id: string) =>
  (await suite.env.prisma.appToken.findUniqueOrThrow({ where: { id } })).revokedOn === null;

describe('revoking a token while it issues another', () => {
  it('revokes the token issued during the revocation, and refuses the issue after it', async () => {
    const merchant = await suite.env.merchantToken(suite.merchants.shop);
    const created = await issueWith(merchant);
    expect(created.status).toBe(201);
    const parent = created.body as Issued;

    let revocation: ReturnType<typeof revoke> | undefined;
    const child = await whileHolding(
      suite.env.database.url,
      {
        sql: 'SELECT id FROM merchants WHERE id = $1 FOR UPDATE',
        params: [suite.merchants.shop.merchant.id],
      },
      () => issueWith(parent),
      'the issuance waiting on the merchant row, its issuer held',
      async (probe, holder) => {
        // the revocation starts now, and waits for the issuance, which holds its issuer
        revocation = revoke(merchant, parent.id);
        const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        await eventually(
          async () =>
            (
              await probe.query(
                `SELECT 1 FROM pg_stat_activity waiter
                  WHERE EXISTS (SELECT 1 FROM pg_stat_activity issuing
                                 WHERE issuing.pid = ANY(pg_blocking_pids(waiter.pid))
                                   AND $1 = ANY(pg_blocking_pids(issuing.pid)))`,
                [holderPid],
              )
            ).rowCount! > 0,
          { timeoutMs: 20_000, what: 'the revocation waiting for the issuance' },
        );
      },
    );
    expect(child.status).toBe(201);
    const childId = (child.body as Issued).id;
    expect((await revocation!).status).toBe(204);
    // the token issued while its issuer was being revoked is revoked with it
    expect({ parent: await isActive(parent.id), child: await isActive(childId) }).toEqual({
      parent: false,
      child: false,
    });
    const authenticated = await requestJson(suite.url, `/stores/${suite.merchants.shop.store.id}`, {
      auth: bearer(child.body as Issued),
    });
    expect(authenticated.status).toBe(401);
  }, 60_000);

  it('refuses an issuance by a token revoked meanwhile, as the credential it no longer is', async () => {
    const merchant = await suite.env.merchantToken(suite.merchants.shop);
    const parent = (await issueWith(merchant)).body as Issued;
    // authenticated once (now in the gateway's cache), then revoked in the database only, as a
    // revocation committed while this request was already past authentication would be
    expect(
      (await requestJson(suite.url, `/stores/${suite.merchants.shop.store.id}`, { auth: bearer(parent) }))
        .status,
    ).toBe(200);
    await suite.env.prisma.appToken.update({ where: { id: parent.id }, data: { revokedOn: new Date() } });
    const refused = await issueWith(parent);
    expect(refused.status).toBe(401);
    expect(await suite.env.prisma.appToken.count({ where: { issuedBy: parent.id } })).toBe(0);
  });
});
