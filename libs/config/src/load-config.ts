import {
  configSchema,
  crossFieldProblems,
  missingSecrets,
  secretsOf,
  SECRET_USERS,
  type AppConfig,
  type ConfigWith,
  type FullConfig,
  type ProcessConfig,
  type ProcessName,
  type ProcessSecret,
} from './config.schema';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment into the typed config, or throws a ConfigError naming every bad variable.
 * A variable set to the empty string counts as unset (its default applies, or it is missing), as
 * `NAME=` in an env file and `${NAME:-}` in docker-compose.yml write it: an empty optional secret is
 * not a short one, and an empty number is not 0. With a process named, the secrets that process
 * uses are required (SECRET_USERS) and the others may be left out; without one, all of them are
 * (the test suites and benchmarks, which run every process from one config).
 */
export function loadConfig(env?: NodeJS.ProcessEnv): FullConfig;
export function loadConfig<P extends ProcessName>(env: NodeJS.ProcessEnv, process: P): ProcessConfig<P>;
export function loadConfig(env: NodeJS.ProcessEnv = process.env, processName?: ProcessName): AppConfig {
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const needs = processName ? secretsOf(processName) : (Object.keys(SECRET_USERS) as ProcessSecret[]);
  const unset = missingSecrets(given as Partial<AppConfig>, needs).map(
    (name) => `${name} is required${processName ? ` (the ${processName} uses it)` : ''}`,
  );
  const result = configSchema.safeParse(given);
  if (result.success) {
    const problems = [...unset, ...crossFieldProblems(result.data)];
    if (problems.length > 0) throw new ConfigError(problems);
    return result.data;
  }
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    const message =
      issue.code === 'invalid_type' && issue.received === 'undefined' ? 'is required' : issue.message;
    return `${name} ${message}`;
  });
  throw new ConfigError([...problems, ...unset]);
}

/**
 * For process entry points: the config of `process` (its own secrets required); a bad value stops
 * the process with a clear message and exit code 78 (EX_CONFIG).
 */
export function loadConfigOrExit<P extends ProcessName>(
  process: P,
  env: NodeJS.ProcessEnv = globalThis.process.env,
): ProcessConfig<P> {
  try {
    return loadConfig(env, process);
  } catch (error) {
    if (error instanceof ConfigError) {
      globalThis.process.stderr.write(`${error.message}\nSee .env.example for every setting.\n`);
      globalThis.process.exit(78);
    }
    throw error;
  }
}

/**
 * The config with `needs` set, for a provider that uses those secrets: a ConfigError naming the
 * missing ones otherwise, raised when the provider is built (at start), never later.
 */
export function requireSecrets<K extends ProcessSecret>(
  config: AppConfig,
  needs: readonly K[],
  user: string,
): ConfigWith<K> {
  const missing = missingSecrets(config, needs);
  if (missing.length > 0)
    throw new ConfigError(missing.map((name) => `${name} is required (${user} uses it)`));
  return config as ConfigWith<K>;
}
