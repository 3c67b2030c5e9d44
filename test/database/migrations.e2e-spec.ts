// db:migrate:new names a migration after every other; db:check fails when a migration reached the
// branch after one that sorts after it (scripts/migrations.ts): on folder lists, on git repositories
// built here (a merge, a shallow clone, no git at all), and on this repository itself.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  KNOWN_OUT_OF_ORDER,
  migrationFolders,
  migrationTimestamp,
  nextMigrationName,
  orderProblems,
  readArrivals,
} from '../../scripts/migrations';

describe('nextMigrationName', () => {
  const existing = ['20261121115242_init', '20261125110000_hosted_checkout'];

  it('takes the UTC clock when it is after every folder', () => {
    expect(nextMigrationName(existing, 'refund_retries', new Date('2026-11-28T10:15:30.900Z'))).toBe(
      '20261128101530_refund_retries',
    );
  });

  it('takes one second after the newest folder when the clock is not after it (across a day too)', () => {
    expect(nextMigrationName(existing, 'a', new Date('2026-11-25T10:59:59Z'))).toBe('20261125110001_a');
    expect(nextMigrationName(existing, 'a', new Date('2026-11-25T11:00:00Z'))).toBe('20261125110001_a');
    expect(nextMigrationName(['20261231235959_b'], 'a', new Date('2026-01-01T00:00:00Z'))).toBe(
      '20270101000000_a',
    );
  });

  it('refuses a name that is not snake_case', () => {
    for (const label of ['', 'Refunds', 'two words', 'a__b', '_a', 'a-b'])
      expect(() => nextMigrationName(existing, label, new Date())).toThrow('snake_case');
  });

  it('writes timestamps as Prisma does', () => {
    expect(migrationTimestamp(new Date('2026-03-04T05:06:07.890Z'))).toBe('20260304050607');
  });
});

describe('orderProblems', () => {
  const A = '20260101000000_a';
  const B = '20260102000000_b';
  const C = '20260103000000_c';

  it('accepts folders that arrived in the order of their names, several in one commit in any', () => {
    expect(
      orderProblems(
        [A, B, C],
        new Map([
          [A, 0],
          [C, 1],
          [B, 1],
        ]),
        {},
      ),
    ).toEqual([]);
  });

  it('names a folder that arrived after one that sorts after it, and that one', () => {
    const problems = orderProblems(
      [A, B, C],
      new Map([
        [A, 0],
        [C, 1],
        [B, 2],
      ]),
      {},
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${B} sorts before ${C}, which reached the branch before it`));
  });

  it('counts a folder no commit brought (not committed yet) as arriving last', () => {
    expect(
      orderProblems(
        [A, B, C],
        new Map([
          [A, 0],
          [C, 1],
        ]),
        {},
      ),
    ).toEqual([expect.stringMatching(new RegExp(`^${B} sorts before ${C}`))]);
    expect(
      orderProblems(
        [A, B, C],
        new Map([
          [A, 0],
          [B, 1],
        ]),
        {},
      ),
    ).toEqual([]);
  });

  it('passes a known exception, and refuses one that names no folder', () => {
    expect(
      orderProblems(
        [A, B, C],
        new Map([
          [A, 0],
          [C, 1],
          [B, 2],
        ]),
        { [B]: 'applied already' },
      ),
    ).toEqual([]);
    expect(
      orderProblems(
        [A, C],
        new Map([
          [A, 0],
          [C, 1],
        ]),
        { [B]: 'gone' },
      ),
    ).toEqual([`known exception ${B} is not a migration folder`]);
  });

  it('refuses names Prisma would order wrongly, and one timestamp twice, with or without history', () => {
    const folders = [A, '20260101000000_a2', '2026010100000_short', '20261301000000_month', 'init'];
    const problems = orderProblems(folders, null, {});
    expect(problems).toEqual([
      "20260101000000_a2: the same timestamp as 20260101000000_a (their order is their names')",
      expect.stringMatching(/^2026010100000_short: not <UTC timestamp/),
      expect.stringMatching(/^20261301000000_month: not <UTC timestamp/),
      expect.stringMatching(/^init: not <UTC timestamp/),
    ]);
  });
});

describe('readArrivals on git repositories', () => {
  let dir: string;
  let clock = 1_800_000_000;

  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.test', ...args], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, GIT_AUTHOR_DATE: `@${clock} +0000`, GIT_COMMITTER_DATE: `@${clock++} +0000` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const addMigration = (cwd: string, folder: string) => {
    mkdirSync(path.join(cwd, 'prisma/migrations', folder), { recursive: true });
    writeFileSync(path.join(cwd, 'prisma/migrations', folder, 'migration.sql'), `-- ${folder}\n`);
  };
  const commitMigration = (cwd: string, folder: string) => {
    addMigration(cwd, folder);
    git(cwd, 'add', '.');
    git(cwd, 'commit', '-q', '-m', folder);
  };
  const problemsIn = (cwd: string) => {
    const arrivals = readArrivals(cwd);
    return orderProblems(migrationFolders(cwd), arrivals.kind === 'none' ? null : arrivals.position, {});
  };

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'kessai-migrations-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * The history of issue 34: a branch writes 0110_bank (after 0100_base) before main gets
   * 0120_checkout, and is merged after it.
   */
  function branchMergedLate(repo: string, bankName = '20260101100000_bank') {
    git(repo, 'init', '-q', '-b', 'main');
    commitMigration(repo, '20260101000000_base');
    git(repo, 'checkout', '-q', '-b', 'bank');
    commitMigration(repo, bankName);
    git(repo, 'checkout', '-q', 'main');
    commitMigration(repo, '20260101120000_checkout');
    git(repo, 'merge', '-q', '--no-ff', '-m', 'Merge branch bank', 'bank');
  }

  it('orders by when a folder reached the first-parent line: a branch merged late is late, whenever it was written', () => {
    branchMergedLate(dir);
    const arrivals = readArrivals(dir);
    expect(arrivals.kind).toBe('history');
    expect(arrivals.kind === 'history' && Object.fromEntries(arrivals.position)).toEqual({
      '20260101000000_base': 0,
      '20260101120000_checkout': 1,
      '20260101100000_bank': 2,
    });
    expect(problemsIn(dir)).toEqual([
      expect.stringMatching(/^20260101100000_bank sorts before 20260101120000_checkout, which reached/),
    ]);
  });

  it('accepts the same merge once the branch names its migration after main’s', () => {
    branchMergedLate(dir, '20260101130000_bank');
    expect(problemsIn(dir)).toEqual([]);
  });

  it('checks a migration not committed yet against every committed one', () => {
    git(dir, 'init', '-q', '-b', 'main');
    commitMigration(dir, '20260101000000_base');
    commitMigration(dir, '20260101120000_checkout');
    addMigration(dir, '20260101100000_new');
    expect(problemsIn(dir)).toEqual([expect.stringMatching(/^20260101100000_new sorts before/)]);
  });

  it('in a shallow clone: says so, and still checks a new folder against the committed ones', () => {
    const origin = path.join(dir, 'origin');
    mkdirSync(origin);
    branchMergedLate(origin);
    const clone = path.join(dir, 'clone');
    git(dir, 'clone', '-q', '--depth', '1', `file://${origin}`, clone);
    const arrivals = readArrivals(clone);
    expect(arrivals).toMatchObject({ kind: 'tracked', reason: expect.stringMatching(/shallow/) as string });
    // the merged history's disorder is out of its sight
    expect(problemsIn(clone)).toEqual([]);
    addMigration(clone, '20260101110000_new');
    expect(problemsIn(clone)).toEqual([
      expect.stringMatching(/^20260101110000_new sorts before 20260101120000_checkout/),
    ]);
  });

  it('without git: names nothing to order by, and still checks the names', () => {
    addMigration(dir, '20260101000000_base');
    addMigration(dir, 'init');
    expect(readArrivals(dir)).toEqual({ kind: 'none', reason: 'not a git work tree' });
    expect(problemsIn(dir)).toEqual([expect.stringMatching(/^init: not <UTC timestamp/)]);
  });
});

describe("this repository's migrations", () => {
  const arrivals = readArrivals();
  const withHistory = arrivals.kind === 'history' ? it : it.skip;

  withHistory('are in order but for the known exceptions, each of which is out of order', () => {
    const folders = migrationFolders();
    const position = arrivals.kind === 'history' ? arrivals.position : null;
    expect(orderProblems(folders, position)).toEqual([]);
    const unexcused = orderProblems(folders, position, {});
    expect(unexcused.map((problem) => problem.split(' ')[0])).toEqual(Object.keys(KNOWN_OUT_OF_ORDER));
  });
});
