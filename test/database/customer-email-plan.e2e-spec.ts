// refers.sendCode asks whether a store has a token made for an address (decision 0058) on every
// request a shop's page sends: among a store's many thousands of tokens it probes one index entry,
// transaction_tokens_store_email_idx, never reading the store's tokens one by one.
import type { Client } from 'pg';
import {
  APPROVED_TEST_CARD,
  insertCardToken,
  registeredStatement,
  statementPlan,
  suiteClient,
  tableReads,
  useSuite,
} from '@kessai/testing';

const TOKENS = 20_000;
const HAS_CUSTOMER_EMAIL = registeredStatement('transaction_tokens_has_customer_email');

const suite = useSuite();
let client: Client;
let storeId: string;

beforeAll(async () => {
  const { merchant, store } = await suite.env.seedMerchant('customer-email-plan');
  storeId = store.id;
  const token = await insertCardToken(
    suite.env,
    { merchantId: merchant.id, storeId },
    { cardNumber: APPROVED_TEST_CARD },
  );
  client = await suiteClient(suite);
  // TOKENS copies of it in the same store, each made for its own address, one of them Hanako's
  const { rows: columns } = await client.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns
      WHERE table_name = 'transaction_tokens' AND column_name NOT IN ('id', 'email')`,
  );
  const list = columns.map((column) => `"${column.name}"`).join(', ');
  await client.query(
    `INSERT INTO transaction_tokens (id, email, ${list})
     SELECT gen_random_uuid(), 'buyer' || n || '@example.test', ${list}
       FROM transaction_tokens, generate_series(1, $2::int) n WHERE id = $1`,
    [token, TOKENS],
  );
  await client.query(`UPDATE transaction_tokens SET email = 'Hanako@Example.test' WHERE id = $1`, [token]);
  await client.query('ANALYZE transaction_tokens');
});

it.each(['custom', 'generic'] as const)(
  'finds a customer by address through the store-email index, reading no other token (%s plan)',
  async (mode) => {
    const plan = await statementPlan(
      client,
      HAS_CUSTOMER_EMAIL,
      { storeId, mode: 'test', email: 'hanako@example.test' },
      mode,
    );
    const read = tableReads(plan, 'transaction_tokens');
    expect(read.indexes).toEqual(['transaction_tokens_store_email_idx']);
    expect(read.rows).toBeLessThan(5);
  },
);

it('compares the whole address case-blind, never as a pattern', async () => {
  const found = async (email: string) =>
    (
      await client.query<{ found: boolean }>(
        HAS_CUSTOMER_EMAIL.text,
        HAS_CUSTOMER_EMAIL.encode({ storeId, mode: 'test', email }),
      )
    ).rows[0].found;
  expect(await found('HANAKO@example.TEST')).toBe(true);
  expect(await found('hanak_@example.test')).toBe(false);
  expect(await found('%@example.test')).toBe(false);
  expect(await found('hanako@example.test')).toBe(true);
});
