// use_confirmation tokens (issue 18; docs/transaction-tokens.md, "Confirmation") through the
// official SDK: the code reaches the customer through the mail drop, a wrong code is refused and
// counted, the right one confirms, and an unconfirmed token cannot be charged. The gateway runs
// in-process; no charge-service (a charge accepted stays pending, which is all this suite reads).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PaymentType, TransactionTokenType } from 'univapay-node';
import { TOKEN_UPDATED } from '@kessai/contracts';
import {
  APPROVED_TEST_CARD,
  NEXT_YEAR,
  outboxEventsOf,
  sdkCardToken,
  sdkError,
  useSuite,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const mailDir = mkdtempSync(join(tmpdir(), 'kessai-token-mail-'));
const suite = useSuite({
  variables: { MAIL_DROP_DIR: mailDir },
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
});

const sdk = () => suite.sdk.shop;

function confirmingToken(email: string | null = 'buyer@example.test'): Promise<any> {
  return sdkCardToken(sdk(), { type: 'recurring', email, extra: { useConfirmation: true } });
}

/** The code mailed for a token (the mail drop is the delivery mechanism). */
function mailedCode(tokenId: string): { to: string; code: string } {
  const file = readdirSync(mailDir).find((name) => name === `token-confirmation-${tokenId}.json`);
  if (!file) throw new Error(`no confirmation mail for ${tokenId}`);
  return JSON.parse(readFileSync(join(mailDir, file), 'utf8'));
}

const charge = (tokenId: string) =>
  suite.api.shop.request('/charges', {
    method: 'POST',
    json: { transaction_token_id: tokenId, amount: 1000, currency: 'JPY' },
  });

describe('token confirmation', () => {
  it('mails a code; a wrong one is refused, the right one confirms; only then can it be charged', async () => {
    const token = await confirmingToken();
    expect(token.confirmed).toBe(false);
    const mail = mailedCode(token.id);
    expect(mail.to).toBe('buyer@example.test');
    expect(mail.code).toMatch(/^\d{6}$/);
    // the code is nowhere but the mail: not in the row, not in the answer
    const row = await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: token.id } });
    expect(row.confirmationCodeHash).not.toContain(mail.code);
    expect(JSON.stringify(token)).not.toContain(mail.code);

    const unconfirmed = await charge(token.id);
    expect([unconfirmed.status, unconfirmed.body.code]).toEqual([400, 'TOKEN_MUST_BE_CONFIRMED']);

    const wrong = String((Number(mail.code) + 1) % 1_000_000).padStart(6, '0');
    const refused = await sdkError(
      sdk().transactionTokens.confirm(suite.merchants.shop.store.id, token.id, { confirmationCode: wrong }),
    );
    expect(refused).toMatchObject({ httpCode: 400, code: 'WRONG_CONFIRMATION_CODE' });

    const confirmed: any = await sdk().transactionTokens.confirm(suite.merchants.shop.store.id, token.id, {
      confirmationCode: mail.code,
    });
    expect(confirmed).toMatchObject({ id: token.id, confirmed: true });
    expect((await sdk().transactionTokens.get(suite.merchants.shop.store.id, token.id)).confirmed).toBe(true);
    const events = (await outboxEventsOf(suite.env, token.id)).filter(
      (event) => event.eventType === TOKEN_UPDATED,
    );
    expect(events.map((event) => (event.payload as { changed: string[] }).changed)).toEqual([['confirmed']]);

    const accepted = await charge(token.id);
    expect([accepted.status, accepted.body.status]).toEqual([201, 'pending']);
    // confirming again answers the token as it is, with no second event
    await sdk().transactionTokens.confirm(suite.merchants.shop.store.id, token.id, {
      confirmationCode: mail.code,
    });
    expect(
      (await outboxEventsOf(suite.env, token.id)).filter((e) => e.eventType === TOKEN_UPDATED),
    ).toHaveLength(1);
  });

  it('spends the code after five wrong ones, even tried in parallel', async () => {
    const token = await confirmingToken();
    const { code } = mailedCode(token.id);
    const wrong = (i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        sdkError(
          sdk().transactionTokens.confirm(suite.merchants.shop.store.id, token.id, {
            confirmationCode: wrong(i),
          }),
        ),
      ),
    );
    const codes = answers.map((a) => String(a.code));
    expect(codes.filter((c) => c === 'WRONG_CONFIRMATION_CODE')).toHaveLength(5);
    expect(codes.filter((c) => c === 'CANNOT_UPDATE_TRANSACTION_TOKEN')).toHaveLength(3);
    const spent = await sdkError(
      sdk().transactionTokens.confirm(suite.merchants.shop.store.id, token.id, { confirmationCode: code }),
    );
    expect(spent).toMatchObject({ httpCode: 400, code: 'CANNOT_UPDATE_TRANSACTION_TOKEN' });
    expect(
      (await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: token.id } })).confirmed,
    ).toBe(false);
  });

  it('needs an email; a token made without use_confirmation has nothing to confirm; others get 404', async () => {
    const api = suite.api.shop;
    const noEmail = await api.request('/tokens', {
      method: 'POST',
      json: {
        payment_type: 'card',
        type: 'one_time',
        use_confirmation: true,
        data: {
          cardholder: 'Taro Yamada',
          card_number: APPROVED_TEST_CARD,
          exp_month: 12,
          exp_year: NEXT_YEAR,
          cvv: '123',
        },
      },
    });
    expect([noEmail.status, noEmail.body.code]).toEqual([400, 'CONFIRMATION_REQUIRES_EMAIL']);

    const plain: any = await sdk().transactionTokens.create({
      paymentType: PaymentType.CARD,
      type: TransactionTokenType.ONE_TIME,
      email: 'buyer@example.test',
      data: {
        cardholder: 'Taro Yamada',
        cardNumber: APPROVED_TEST_CARD,
        expMonth: 12,
        expYear: NEXT_YEAR,
        cvv: '123',
      },
    });
    expect(plain).not.toHaveProperty('confirmed');
    const nothing = await sdkError(
      sdk().transactionTokens.confirm(suite.merchants.shop.store.id, plain.id, {
        confirmationCode: '000000',
      }),
    );
    expect(nothing).toMatchObject({ httpCode: 400, code: 'CANNOT_UPDATE_TRANSACTION_TOKEN' });

    const token = await confirmingToken();
    const { code } = mailedCode(token.id);
    const other = suite.sdk.foreign;
    const foreignTry = await sdkError(
      other.transactionTokens.confirm(suite.merchants.shop.store.id, token.id, { confirmationCode: code }),
    );
    expect(foreignTry.httpCode).toBe(404);
    const bad = await api.request(`/stores/${suite.merchants.shop.store.id}/tokens/${token.id}/confirm`, {
      method: 'POST',
      json: {},
    });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(
      (await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: token.id } })).confirmed,
    ).toBe(false);
  });
});
