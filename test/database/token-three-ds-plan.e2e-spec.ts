// charge-service's sweep of card tokens whose 3-D Secure nobody completed (docs/transaction-tokens.md,
// "3-D Secure") runs every CHARGE_SWEEP_INTERVAL_MS in every replica: among many thousands of tokens
// it reads the few awaiting ones only, through their partial index, and finds those past deadline.
import type { Client } from 'pg';
import {
  registeredStatement,
  seedCardTokenCopies,
  statementPlan,
  tableReads,
  useSuite,
} from '@kessai/testing';

const TOKENS = 20_000;
const FIND_EXPIRED = registeredStatement('token_three_ds_find_expired');

const suite = useSuite();
let client: Client;
let expired: string[];

beforeAll(async () => {
  // a card token and TOKENS copies of it, their 3-D Secure over (or never asked)
  ({ client } = await seedCardTokenCopies(suite, 'token-3ds-plan', TOKENS));
  await client.query(
    `UPDATE transaction_tokens
        SET data = jsonb_set(data, '{three_ds}', '{"enabled": true, "status": "successful", "attempt": 1}')`,
  );
  // a few awaiting: three past their deadline, two not, one from before deadlines were stored
  const awaiting = async (expiresOn: string | null, updatedOn = 'now()') =>
    (
      await client.query<{ id: string }>(
        `UPDATE transaction_tokens
            SET data = jsonb_set(data, '{three_ds}', jsonb_build_object(
                  'enabled', true, 'status', 'awaiting', 'attempt', 1,
                  'expires_on', ${expiresOn === null ? 'NULL' : `to_jsonb(${expiresOn})`})),
                updated_on = ${updatedOn}
          WHERE id = (SELECT id FROM transaction_tokens
                       WHERE data->'three_ds'->>'status' = 'successful' LIMIT 1)
          RETURNING id::text`,
      )
    ).rows[0].id;
  expired = [
    await awaiting(`now() - interval '1 minute'`),
    await awaiting(`now() - interval '2 minutes'`),
    await awaiting(`now() - interval '3 minutes'`),
    await awaiting(null, `now() - interval '1 hour'`),
  ];
  await awaiting(`now() + interval '5 minutes'`);
  await awaiting(null);
  await client.query('ANALYZE transaction_tokens');
});

it.each(['custom', 'generic'] as const)(
  'the sweep reads the awaiting tokens only, by their partial index (%s plan)',
  async (mode) => {
    const plan = await statementPlan(client, FIND_EXPIRED, { expirySeconds: 1_200, limit: 500 }, mode);
    const read = tableReads(plan, 'transaction_tokens');
    expect(read.indexes).toEqual(['transaction_tokens_three_ds_awaiting_idx']);
    expect(read.rows).toBeLessThan(20);
    expect(plan[0]['Actual Rows']).toBe(expired.length);
  },
);

it('finds the tokens past their deadline, the oldest deadline first', async () => {
  const { rows } = await client.query<{ id: string }>(
    FIND_EXPIRED.text,
    FIND_EXPIRED.encode({ expirySeconds: 1_200, limit: 500 }),
  );
  // the one without a stored deadline: its last change an hour ago + 20 minutes
  expect(rows.map((row) => row.id)).toEqual([expired[3], expired[2], expired[1], expired[0]]);
});
