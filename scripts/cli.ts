/**
 * Kessai admin CLI: `npm run cli -- <command> [options]`. Prints JSON on stdout.
 */
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '@kessai/config';
import { AdminError, runCli } from '@kessai/admin';

// settings come from the environment first, then .env (which never overrides it)
if (existsSync('.env')) process.loadEnvFile('.env');

/** Standard input to its end: a processor account's credentials, piped or typed (then Ctrl-D). */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    process.stderr.write('secret key, then webhook secret, one a line; end with Ctrl-D:\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

runCli(process.argv.slice(2), {
  env: process.env,
  credentialsFile: resolve('.kessai', 'demo-credentials.json'),
  print: (text) => process.stdout.write(text),
  readStdin,
}).then(
  (result) => {
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  },
  (error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee .env.example for every setting.\n`);
      process.exit(78);
    }
    if (error instanceof AdminError || (error instanceof TypeError && 'code' in error)) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
