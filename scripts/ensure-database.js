// Creates the database named in DATABASE_URL when it does not exist yet.
const { Client } = require('pg');

async function main() {
  const url = new URL(process.env.DATABASE_URL);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`unexpected database name ${JSON.stringify(name)}`);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE "${name}"`);
      console.log(`services: created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(`services: could not prepare the database: ${error.message}`);
  process.exit(1);
});
