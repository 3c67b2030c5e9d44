// charge-service's sweep of card tokens whose 3-D Secure has been pending too long (its job lost;
// docs/transaction-tokens.md, "3-D Secure") runs every CHARGE_SWEEP_INTERVAL_MS in every
// replica: among many thousands of tokens it reads the few pending ones only, through their partial
// index, and finds those pending longer than TOKEN_THREE_DS_STALE_SECONDS.
import type { Client } from 'pg';
import {
  registeredStatement,
  seedCardTokenCopies,
  statementPlan,
  tableReads,
  useSuite,
} from '@kessai/testing';

const TOKENS = 20_000;
const FIND_STALE = registeredStatement('token_three_ds_find_stale');

const suite = useSuite();
let client: Client;
let stale: string[];

beforeAll(async () => {
  // a card token and TOKENS copies of it
  ({ client } = await seedCardTokenCopies(suite, 'token-three-ds-pending-plan', TOKENS));
  await client.query(
    `UPDATE transaction_tokens
        SET data = jsonb_set(data, '{three_ds}', '{"enabled": true, "status": "successful", "attempt": 1}'),
            updated_on = now() - interval '1 day'`,
  );
  // a few pending: three for longer than the stale time (the oldest with no attempt stored), two not
  const pending = async (updatedOn: string, attempt: number | null) =>
    (
      await client.query<{ id: string }>(
        `UPDATE transaction_tokens
            SET data = jsonb_set(data, '{three_ds}', jsonb_strip_nulls(jsonb_build_object(
                  'enabled', true, 'status', 'pending', 'attempt', $1::int))),
                updated_on = ${updatedOn}
          WHERE id = (SELECT id FROM transaction_tokens
                       WHERE data->'three_ds'->>'status' = 'successful' LIMIT 1)
          RETURNING id::text`,
        [attempt],
      )
    ).rows[0].id;
  stale = [
    await pending(`now() - interval '31 minutes'`, 2),
    await pending(`now() - interval '2 hours'`, 1),
    await pending(`now() - interval '3 hours'`, null),
  ];
  await pending(`now() - interval '5 minutes'`, 1);
  await pending('now()', 3);
  await client.query('ANALYZE transaction_tokens');
});

it.each(['custom', 'generic'] as const)(
  'the sweep reads the pending tokens only, by their partial index (%s plan)',
  async (mode) => {
    const plan = await statementPlan(client, FIND_STALE, { staleSeconds: 1_800, limit: 500 }, mode);
    const read = tableReads(plan, 'transaction_tokens');
    expect(read.indexes).toEqual(['transaction_tokens_three_ds_pending_idx']);
    expect(read.rows).toBeLessThan(20);
    expect(plan[0]['Actual Rows']).toBe(stale.length);
  },
);

it('finds the tokens pending longer than the stale time, the oldest first, with their attempt', async () => {
  const { rows } = await client.query<{ id: string; attempt: number }>(
    FIND_STALE.text,
    FIND_STALE.encode({ staleSeconds: 1_800, limit: 500 }),
  );
  expect(rows).toEqual([
    { id: stale[2], attempt: 1 },
    { id: stale[1], attempt: 1 },
    { id: stale[0], attempt: 2 },
  ]);
});
