import { configSchema, crossFieldProblems, type AppConfig } from './config.schema';

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
 * not a short one, and an empty number is not 0.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const result = configSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')),
  );
  if (result.success) {
    const problems = crossFieldProblems(result.data);
    if (problems.length > 0) throw new ConfigError(problems);
    return result.data;
  }
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    const message =
      issue.code === 'invalid_type' && issue.received === 'undefined' ? 'is required' : issue.message;
    return `${name} ${message}`;
  });
  throw new ConfigError(problems);
}

/** For process entry points: a bad value stops the process with a clear message and exit code 78 (EX_CONFIG). */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee .env.example for every setting.\n`);
      process.exit(78);
    }
    throw error;
  }
}
