// docs/environment.md is generated from the config schema (scripts/config-reference.ts): the committed
// page is current, it names every setting with its default, and .env.example mentions every setting.
import { readFileSync } from 'node:fs';
import { configSchema } from '@kessai/config';
import {
  CONFIG_REFERENCE_FILE,
  generatedConfigReference,
  settingsMissingFromEnvExample,
} from '../../scripts/config-reference';

describe('the configuration reference (docs/environment.md)', () => {
  const generated = generatedConfigReference();

  it('is what the config schema generates (npm run config:generate)', () => {
    expect(readFileSync(CONFIG_REFERENCE_FILE, 'utf8')).toBe(generated);
  });

  it('has a row for every setting, with its default or whether it is required', () => {
    const rows = generated.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows.map((row) => row.split('`')[1])).toEqual(Object.keys(configSchema.shape));
    expect(rows.find((row) => row.startsWith('| `PORT`'))).toContain('`3000`');
    expect(rows.find((row) => row.startsWith('| `DATABASE_URL`'))).toContain('**required**');
    expect(rows.find((row) => row.startsWith('| `LOG_LEVEL`'))).toContain('`info`');
  });

  it('.env.example mentions every setting', () => {
    expect(settingsMissingFromEnvExample()).toEqual([]);
  });
});
