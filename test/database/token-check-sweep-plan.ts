// The plan test of charge-service's sweeps of card tokens whose check (3-D Secure, CVV
// authorization) has been pending too long, their job lost (docs/transaction-tokens.md): each sweep
// runs every CHARGE_SWEEP_INTERVAL_MS in every replica, so among many thousands of tokens it must
// read the few pending ones only, through their partial index, and find those pending longer than
// the check's stale time. One suite per check (each its own database), from this one body.
import type { Client } from 'pg';
import {
  registeredStatement,
  seedCardTokenCopies,
  statementPlan,
  tableReads,
  useSuite,
} from '@kessai/testing';

const TOKENS = 20_000;

export interface TokenCheckSweep {
  /** the check's key in the token's data (`three_ds`, `cvv_authorize`) */
  key: string;
  /** the check's status once it is done (`successful`, `current`) */
  done: string;
  /** the sweep's registered statement */
  statement: string;
  /** the partial index of the check's pending tokens */
  index: string;
}

export function tokenCheckSweepPlanSuite(check: TokenCheckSweep): void {
  const FIND_STALE = registeredStatement(check.statement);
  const suite = useSuite();
  let client: Client;
  let stale: string[];

  beforeAll(async () => {
    // a card token and TOKENS copies of it, their check done a day ago
    ({ client } = await seedCardTokenCopies(suite, `${check.key}-sweep-plan`, TOKENS));
    await client.query(
      `UPDATE transaction_tokens
          SET data = jsonb_set(data, $1::text[], jsonb_build_object('enabled', true, 'status', $2::text, 'attempt', 1)),
              updated_on = now() - interval '1 day'`,
      [[check.key], check.done],
    );
    // a few pending: three for longer than the stale time (the oldest with no attempt stored), two not
    const pending = async (updatedOn: string, attempt: number | null) =>
      (
        await client.query<{ id: string }>(
          `UPDATE transaction_tokens
              SET data = jsonb_set(data, $2::text[], jsonb_strip_nulls(jsonb_build_object(
                    'enabled', true, 'status', 'pending', 'attempt', $1::int))),
                  updated_on = ${updatedOn}
            WHERE id = (SELECT id FROM transaction_tokens
                         WHERE data->$3::text->>'status' = $4::text LIMIT 1)
            RETURNING id::text`,
          [attempt, [check.key], check.key, check.done],
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
      expect(read.indexes).toEqual([check.index]);
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
}
