// A merchant's verification (onboarding data) through the official univapay-node SDK
// (verification.create/get/update), the operator's review through the admin CLI
// (verification:approve / verification:reject), and live mode closed to an unverified merchant:
// its live credentials answer LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED until the approval, and again
// after a rejection (decision 0049).
import type SDK from 'univapay-node';
import { RecurringTokenPrivilege, type VerificationCreateParams } from 'univapay-node';
import { sdkError, sdkFor, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: {}, other: {} } });

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const onboarding: VerificationCreateParams = {
  homepageUrl: 'https://yamada-shoten.example/',
  companyDescription: 'Tea and tea ware, sold online and in two shops in Kyoto.',
  companyContactInfo: {
    name: 'Hanako Yamada',
    companyName: 'Yamada Shoten KK',
    phoneNumber: { countryCode: '81', localNumber: '75-123-4567' },
    line1: '1-1 Gion',
    city: 'Kyoto',
    state: 'Kyoto',
    country: 'jp',
    zip: '605-0001',
  },
  businessType: 'retail',
  systemManagerName: 'Taro Yamada',
  systemManagerEmail: 'it@yamada-shoten.example',
  recurringTokenRequest: RecurringTokenPrivilege.BOUNDED,
  recurringTokenRequestReason: 'monthly tea subscriptions',
};

let shop: SDK;
let live: SDK;

beforeAll(async () => {
  shop = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.shop));
  // the operator issues a live token before the merchant is verified (docs/decisions/0028)
  live = sdkFor(
    suite.url,
    await suite.env.admin.issueAppToken({ merchantId: suite.merchants.shop.merchant.id, mode: 'live' }),
  );
});

describe('verification through the SDK', () => {
  it('is not there before it is sent', async () => {
    expect(await sdkError(shop.verification.get())).toMatchObject({ code: 'NOT_FOUND', httpCode: 404 });
  });

  it('keeps live mode closed while the merchant is not verified, but answers who it is and its verification', async () => {
    expect(await sdkError(live.stores.list())).toMatchObject({
      code: 'LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED',
      httpCode: 400,
    });
    expect(await sdkError(live.charges.list())).toMatchObject({
      code: 'LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED',
    });
    expect((await live.merchants.me()).verified).toBe(false);
    expect(await sdkError(live.verification.get())).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('creates it: the wire field by field, submitted for review', async () => {
    const created = await shop.verification.create(onboarding);
    expect(created).toEqual({
      id: expect.stringMatching(UUID),
      homepageUrl: 'https://yamada-shoten.example/',
      companyDescription: onboarding.companyDescription,
      companyContactInfo: { ...onboarding.companyContactInfo, country: 'JP' },
      businessType: 'retail',
      systemManagerName: 'Taro Yamada',
      systemManagerEmail: 'it@yamada-shoten.example',
      recurringTokenRequest: 'bounded',
      recurringTokenRequestReason: 'monthly tea subscriptions',
      createdOn: expect.stringMatching(ISO_INSTANT),
      status: 'submitted',
    });
    expect(await shop.verification.get()).toEqual(created);
    // one per merchant, whatever the mode: the live token reads the same
    expect(await live.verification.get()).toEqual(created);
  });

  it('refuses a second one (409 VERIFICATION_DATA_EXISTS) and bad fields with the field named', async () => {
    expect(await sdkError(shop.verification.create(onboarding))).toMatchObject({
      code: 'VERIFICATION_DATA_EXISTS',
      httpCode: 409,
    });
    const other = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.other));
    const bad = await sdkError(other.verification.create({ ...onboarding, homepageUrl: 'not a url' }));
    expect(bad).toMatchObject({ code: 'VALIDATION_ERROR', httpCode: 400 });
    expect(bad.errors.map((error) => (error as { field: string }).field)).toEqual(['homepage_url']);
  });

  it('changes the fields given; the contact info keeps the keys not given', async () => {
    const updated = await shop.verification.update({
      companyDescription: 'Tea, tea ware and classes.',
      companyContactInfo: { line2: 'Higashiyama-ku' },
      allowEmptyCvv: false,
    });
    expect(updated).toMatchObject({
      companyDescription: 'Tea, tea ware and classes.',
      companyContactInfo: { ...onboarding.companyContactInfo, country: 'JP', line2: 'Higashiyama-ku' },
      allowEmptyCvv: false,
      status: 'submitted',
    });
    expect(await shop.verification.get()).toEqual(updated);
  });

  it("is the merchant's own: another merchant has none, a store token may not address it", async () => {
    const other = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.other));
    expect(await sdkError(other.verification.get())).toMatchObject({ code: 'NOT_FOUND', httpCode: 404 });
    expect(await sdkError(other.verification.update({ businessType: 'x' }))).toMatchObject({
      code: 'NOT_FOUND',
    });
    // the seeded SDK client is the store's token
    expect(await sdkError(suite.sdk.shop.verification.get())).toMatchObject({
      code: 'INVALID_PERMISSIONS',
      httpCode: 403,
    });
  });

  it("opens live mode with the operator's approval, and closes it again with a rejection", async () => {
    const merchantId = suite.merchants.shop.merchant.id;
    await expect(suite.cli('verification:approve', '--merchant', merchantId)).rejects.toThrow(
      '--by is required',
    );
    const approved = await suite.cli('verification:approve', '--merchant', merchantId, '--by', 'ops-aiko');
    expect(approved).toMatchObject({
      merchant_id: merchantId,
      status: 'approved',
      reviewed_by: 'ops-aiko',
      reviewed_on: expect.stringMatching(ISO_INSTANT),
    });
    // at once: the CLI told the gateways the merchant's live tokens changed
    expect((await live.stores.list()).items.map((store) => store.id)).toEqual([
      suite.merchants.shop.store.id,
    ]);
    expect((await live.merchants.me()).verified).toBe(true);
    expect(await shop.verification.get()).toMatchObject({
      status: 'approved',
      reviewedOn: approved.reviewed_on,
    });

    const rejected = await suite.cli(
      'verification:reject',
      '--merchant',
      merchantId,
      '--by',
      'ops-aiko',
      '--reason',
      'homepage unreachable',
    );
    expect(rejected).toMatchObject({ status: 'rejected', review_reason: 'homepage unreachable' });
    expect(await sdkError(live.stores.list())).toMatchObject({
      code: 'LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED',
    });
    expect(await shop.verification.get()).toMatchObject({
      status: 'rejected',
      reviewReason: 'homepage unreachable',
    });
  });

  it('refuses a review of a merchant that sent nothing', async () => {
    await expect(
      suite.cli('verification:approve', '--merchant', suite.merchants.other.merchant.id, '--by', 'ops'),
    ).rejects.toThrow('has sent no verification');
  });
});
