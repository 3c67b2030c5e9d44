import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { templateDatabase, testServerUrl, withDatabase } from '../libs/testing/src/database';

/** Builds the template database every e2e suite copies: the real migrations, applied once per run. */
export default async function globalSetup() {
  const template = templateDatabase();
  const admin = new Client({ connectionString: withDatabase(testServerUrl(), 'postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }
  execFileSync('npx', ['prisma', 'migrate', 'deploy'], {
    env: { ...process.env, DATABASE_URL: withDatabase(testServerUrl(), template) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
