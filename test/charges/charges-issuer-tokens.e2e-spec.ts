// The issuer tokens of an awaiting charge: GET .../issuer_token gives the operator's payment page of an
// online charge, GET .../three_ds/issuer_token the issuer's 3-D Secure page of a card charge, each
// refused for the other kind or another status. The real gateway in-process, Postgres and Redis; no
// charge-service, so a test puts the charge in awaiting in the database.
import { sdkFor, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: { pci: true } } });

describe('issuer tokens', () => {
  const path = (id: string, three = false) =>
    `/stores/${suite.merchants.shop.store.id}/charges/${id}/${three ? 'three_ds/' : ''}issuer_token`;
  const get = (id: string, three = false) => suite.api.shop.request(path(id, three));

  it('GET .../issuer_token answers the operator payment URL of an awaiting online charge', async () => {
    const c = await suite.api.shop.charge(await suite.api.shop.onlineToken());
    expect((await get(c.id)).body.code).toBe('INVALID_CHARGE_STATUS');
    const stored = {
      issuer_token: 'https://operator.example.test/pay/1',
      call_method: 'http_get',
      secret: 'x',
    };
    await suite.env.prisma.charge.update({
      where: { id: c.id },
      data: { status: 'awaiting', issuerToken: stored },
    });
    const res = await get(c.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      issuer_token: 'https://operator.example.test/pay/1',
      call_method: 'http_get',
      payload: null,
      payment_type: 'online',
    });
    const sdk = sdkFor(suite.api.shop.baseUrl, suite.merchants.shop.storeToken);
    await expect(sdk.charges.getIssuerToken(suite.merchants.shop.store.id, c.id)).resolves.toMatchObject({
      callMethod: 'http_get',
    });
    expect((await get(c.id, true)).body.code).toBe('INVALID_THREE_DS_STATUS');
  });

  it('GET .../three_ds/issuer_token answers the issuer page of an awaiting 3-D Secure charge', async () => {
    const c = await suite.api.shop.charge(await suite.api.shop.cardToken());
    expect((await get(c.id)).body.code).toBe('NOT_ONLINE_CHARGE');
    expect((await get(c.id, true)).body.code).toBe('INVALID_CHARGE_STATUS');
    await suite.env.prisma.charge.update({
      where: { id: c.id },
      data: {
        status: 'awaiting',
        threeDsIssuerToken: {
          issuer_token: 'https://acs.example.test/3ds/1',
          call_method: 'http_post',
          payload: { PaReq: 'abc', TermUrl: 'https://x.test' },
          content_type: 'application/x-www-form-urlencoded',
        },
      },
    });
    const res = await get(c.id, true);
    expect(res.body).toEqual({
      issuer_token: 'https://acs.example.test/3ds/1',
      call_method: 'http_post',
      payload: { PaReq: 'abc', TermUrl: 'https://x.test' },
      payment_type: 'card',
      content_type: 'application/x-www-form-urlencoded',
    });
    const sdk = sdkFor(suite.api.shop.baseUrl, suite.merchants.shop.storeToken);
    const viaSdk: any = await sdk.charges.threeDsIssuerToken(suite.merchants.shop.store.id, c.id);
    expect(viaSdk.payload).toEqual({ PaReq: 'abc', TermUrl: 'https://x.test' });
  });
});
