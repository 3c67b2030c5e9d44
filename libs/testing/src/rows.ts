// Factories and probes that work on a suite's database directly: charges and tokens written as the
// gateway writes them (for suites that run charge-service without a gateway), and the rows a test
// reads back to check what a request wrote.
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { cardIssuerOf, CardNumber } from '@kessai/cards';
import { CHARGE_REQUESTED } from '@kessai/contracts';
import { limitScopeKey, type Prisma } from '@kessai/db';
import { utcDay } from '@kessai/domain';
import { CardVault } from '@kessai/vault';
import { eventually } from './eventually';
import { suiteClient } from './plans';
import type { SeededMerchant, TestEnvironment } from './environment';

/** A store as the rows name it; a seeded merchant stands for its store. */
export type StoreScope = { merchantId: string; storeId: string } | SeededMerchant;

function ids(scope: StoreScope) {
  return 'merchant' in scope ? { merchantId: scope.merchant.id, storeId: scope.store.id } : scope;
}

/** An aggregate's outbox events (a charge's, a token's), oldest first. */
export function outboxEventsOf(env: TestEnvironment, aggregateId: string) {
  return env.prisma.outboxEvent.findMany({ where: { aggregateId }, orderBy: { sequence: 'asc' } });
}

/** The transaction that last wrote a row: equal for rows written in one transaction. */
export async function lastWriterOf(
  env: TestEnvironment,
  table: 'charges' | 'captures' | 'outbox_events' | 'transaction_tokens' | 'card_vault',
  id: string,
) {
  const rows = await env.prisma.$queryRawUnsafe<{ xmin: string }[]>(
    `SELECT xmin::text AS xmin FROM ${table} WHERE id = $1::uuid`,
    id,
  );
  return rows[0]?.xmin;
}

const today = () => new Date(`${utcDay(new Date())}T00:00:00.000Z`);

/** How many test charges a store has made today (its daily quota's count). */
export async function testChargesToday(env: TestEnvironment, scope: StoreScope): Promise<number> {
  const row = await env.prisma.dailyQuotaUsage.findFirst({
    where: { resource: 'test_charge', scopeKey: limitScopeKey(ids(scope)), day: today() },
  });
  return row?.count ?? 0;
}

/** Sets a store's count of test charges today, as if it had made that many. */
export async function setTestChargesToday(env: TestEnvironment, scope: StoreScope, count: number) {
  const key = { resource: 'test_charge', scopeKey: limitScopeKey(ids(scope)), day: today() };
  await env.prisma.dailyQuotaUsage.upsert({
    where: { resource_scopeKey_day: key },
    create: { ...key, count },
    update: { count },
  });
}

/** A test-mode card token row with its encrypted card, as POST /tokens writes it (no CVV: put one apart). */
export async function insertCardToken(
  env: TestEnvironment,
  scope: StoreScope,
  options: { cardNumber: string; type?: 'one_time' | 'recurring' },
): Promise<string> {
  const id = randomUUID();
  const card = CardNumber.fromDigits(options.cardNumber);
  const issuer = cardIssuerOf(options.cardNumber);
  const vault = new CardVault(env.config.VAULT_KEYS, env.config.VAULT_FINGERPRINT_SECRET);
  await env.prisma.transactionToken.create({
    data: {
      id,
      ...ids(scope),
      mode: 'test',
      type: options.type ?? 'one_time',
      paymentType: 'card',
      data: {
        card: {
          cardholder: 'TARO YAMADA',
          exp_month: 12,
          exp_year: new Date().getUTCFullYear() + 3,
          last_four: card.lastFour,
          brand: card.brand,
          card_bin: card.bin,
          card_type: issuer.cardType,
          country: issuer.country,
        },
      },
      card: { create: vault.encrypt(card, { transactionTokenId: id }) },
    },
  });
  return id;
}

/**
 * For plan tests: a seeded merchant's test card token and `copies` more of it (all its columns but
 * the id), so that a statement is planned against a table of many tokens. Resolves to a connected
 * pg client on the suite's database (closed at the suite's cleanup) and the first token's id.
 */
export async function seedCardTokenCopies(
  suite: { env: TestEnvironment; cleanup(teardown: () => unknown): void },
  name: string,
  copies: number,
): Promise<{ client: Client; tokenId: string }> {
  const { merchant, store } = await suite.env.seedMerchant(name);
  const tokenId = await insertCardToken(
    suite.env,
    { merchantId: merchant.id, storeId: store.id },
    { cardNumber: '4000000000003220' },
  );
  const client = await suiteClient(suite);
  const { rows: columns } = await client.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns
      WHERE table_name = 'transaction_tokens' AND column_name <> 'id'`,
  );
  const list = columns.map((column) => `"${column.name}"`).join(', ');
  await client.query(
    `INSERT INTO transaction_tokens (id, ${list})
     SELECT gen_random_uuid(), ${list} FROM transaction_tokens, generate_series(1, $2::int) WHERE id = $1`,
    [tokenId, copies],
  );
  return { client, tokenId };
}

export interface PendingChargeOptions {
  amount?: number;
  capture?: boolean;
  captureAt?: Date;
  /** the token's mode unless told */
  mode?: 'test' | 'live';
  threeDs?: Prisma.InputJsonObject;
  redirect?: Prisma.InputJsonObject;
  /** false: the row only, no charge_requested (the test adds jobs itself) */
  requested?: boolean;
}

/** A pending charge on a token and its charge_requested command in one transaction, as the gateway writes them. */
export async function insertPendingCharge(
  env: TestEnvironment,
  scope: StoreScope,
  tokenId: string,
  options: PendingChargeOptions = {},
): Promise<string> {
  const { merchantId, storeId } = ids(scope);
  const token = await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } });
  const id = randomUUID();
  const charge = env.prisma.charge.create({
    data: {
      id,
      merchantId,
      storeId,
      transactionTokenId: tokenId,
      transactionTokenType: token.type,
      mode: options.mode ?? token.mode,
      requestedAmount: options.amount ?? 1000,
      requestedCurrency: 'JPY',
      capture: options.capture ?? true,
      captureAt: options.captureAt,
      threeDs: options.threeDs,
      redirect: options.redirect,
    },
  });
  const requested = env.prisma.outboxEvent.create({
    data: {
      merchantId,
      storeId,
      aggregateType: 'charge',
      aggregateId: id,
      eventType: CHARGE_REQUESTED,
      payload: { charge_id: id, store_id: storeId },
    },
  });
  if (options.requested === false) await charge;
  else await env.prisma.$transaction([charge, requested]);
  return id;
}

/**
 * The charge's row once its status is `status` (a worker moving it); past the deadline (eventually's
 * unless told), fails with the status it has instead.
 */
export async function waitForChargeStatus(
  env: TestEnvironment,
  chargeId: string,
  status: string,
  { timeoutMs }: { timeoutMs?: number } = {},
) {
  let seen: string | undefined;
  return eventually(
    async () => {
      const charge = await env.prisma.charge.findUniqueOrThrow({ where: { id: chargeId } });
      seen = charge.status;
      return charge.status === status ? charge : null;
    },
    { timeoutMs, what: `charge ${chargeId} to be ${status}` },
  ).catch((error: unknown) => {
    throw seen === undefined ? error : new Error(`charge ${chargeId} is ${seen}, not ${status}`);
  });
}

/**
 * Sets a charge's columns directly, for a state that a worker or the passing of time would bring
 * (`set` is SQL: "status = 'authorized', capture_status = 'authorized'").
 */
export async function updateChargeRow(env: TestEnvironment, chargeId: string, set: string) {
  await env.prisma.$executeRawUnsafe(`UPDATE charges SET ${set} WHERE id = $1::uuid`, chargeId);
}

export interface RefundRowOptions {
  /** the charge's requested amount unless told */
  amount?: number;
  status?: 'pending' | 'successful' | 'failed' | 'error';
  metadata?: Prisma.InputJsonObject;
  /** now unless told (a test of the order sets it) */
  createdOn?: Date;
  /** a random uuid unless told */
  id?: string;
}

/** A refund row of a charge (its merchant, store, mode and currency), written directly: no API, no event. */
export async function insertRefund(
  env: TestEnvironment,
  chargeId: string,
  options: RefundRowOptions = {},
): Promise<string> {
  const charge = await env.prisma.charge.findUniqueOrThrow({ where: { id: chargeId } });
  const id = options.id ?? randomUUID();
  await env.prisma.refund.create({
    data: {
      id,
      merchantId: charge.merchantId,
      storeId: charge.storeId,
      chargeId,
      mode: charge.mode,
      status: options.status ?? 'pending',
      amount: options.amount ?? charge.requestedAmount,
      currency: charge.requestedCurrency,
      metadata: options.metadata,
      createdOn: options.createdOn,
    },
  });
  return id;
}
