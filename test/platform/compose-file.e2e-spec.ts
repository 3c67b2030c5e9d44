import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  COMPOSE_FILES,
  composeValidator,
  readComposeDocument,
  replicaEnvironmentDrift,
  type ComposeValidator,
} from '../../scripts/compose-check';

/**
 * `npm run compose:check` (issue 34): the compose files are valid for the Compose Specification as
 * Compose v2 reads it (the current schema) and as Debian's docker-compose 1.29 reads it (its own
 * bundled schema), and the check refuses what only one of them takes.
 */
let v1: ComposeValidator;
let v2: ComposeValidator;

beforeAll(() => {
  v1 = composeValidator('v1');
  v2 = composeValidator('v2');
}, 120_000);

const service = (extra: string) => `
services:
  app:
    image: kessai:local
${extra}`;

describe('compose:check', () => {
  it.each(COMPOSE_FILES)('%s is valid for Compose v1 and v2', (file) => {
    const document = readComposeDocument(readFileSync(join(__dirname, '..', '..', file), 'utf8'));
    expect(v1(document)).toEqual([]);
    expect(v2(document)).toEqual([]);
  });

  it('refuses a top-level project name for v1, which 1.29 does not read', () => {
    const document = readComposeDocument(`name: kessai\n${service('')}`);
    expect(v2(document)).toEqual([]);
    expect(v1(document)).toEqual([expect.stringContaining('must NOT have additional properties: name')]);
  });

  it('refuses a service key only v2 knows (develop) for v1', () => {
    const document = readComposeDocument(service('    develop:\n      watch: []'));
    expect(v2(document)).toEqual([]);
    expect(v1(document).join('\n')).toContain('additional properties: develop');
  });

  it('refuses a misspelt key for both', () => {
    const document = readComposeDocument(service('    depends_onn: [db]'));
    expect(v1(document).join('\n')).toContain('depends_onn');
    expect(v2(document).join('\n')).toContain('depends_onn');
  });

  it('reads merge keys as both Composes do: the anchor is checked, not the << key', () => {
    const merged = `
x-base: &base
  image: kessai:local
  init: true
services:
  app:
    <<: *base
    restart: unless-stopped
`;
    expect(v1(readComposeDocument(merged))).toEqual([]);
    expect(v2(readComposeDocument(merged))).toEqual([]);
    // a misspelt key in the anchor reaches the service through the merge
    const broken = merged.replace('init: true', 'inti: true');
    expect(v1(readComposeDocument(broken)).join('\n')).toContain(
      '/services/app must NOT have additional properties: inti',
    );
    expect(v2(readComposeDocument(broken)).join('\n')).toContain(
      '/services/app must NOT have additional properties: inti',
    );
  });

  it("keeps the -2 replicas' environment (host-network x-kessai-env) to docker-compose.yml's", () => {
    const [base, hostNetwork] = COMPOSE_FILES.map((file) =>
      readComposeDocument(readFileSync(join(__dirname, '..', '..', file), 'utf8')),
    );
    expect(replicaEnvironmentDrift(base, hostNetwork)).toEqual([]);
    // a setting added to one copy only, or a value changed in one, is named
    const first = readComposeDocument(`
x-kessai-env:
  HOST: 0.0.0.0
  LOG_LEVEL: info
  SMTP_URL: ''
`);
    const copy = readComposeDocument(`
x-kessai-env:
  HOST: 127.0.0.1
  LOG_LEVEL: debug
  EXTRA: 'yes'
x-loopback-env:
  HOST: 127.0.0.1
`);
    expect(replicaEnvironmentDrift(first, copy)).toEqual([
      'LOG_LEVEL is debug in the host-network x-kessai-env, info here',
      'SMTP_URL is missing from the host-network x-kessai-env',
      'EXTRA is in the host-network x-kessai-env only',
    ]);
  });
});
