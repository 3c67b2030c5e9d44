// Runs the gateway and every worker service as child processes, prefixes their output, prints the
// base URL and demo credentials once the gateway answers, and stops them all gracefully on Ctrl-C
// or SIGTERM (each gets SIGTERM and SHUTDOWN_TIMEOUT_MS to finish its in-flight work).
const { spawn } = require('child_process');

const credentials = JSON.parse(process.argv[2]);
const port = Number(process.env.PORT || 3000);
const services = [
  { name: 'gateway', entry: 'dist/apps/gateway/src/main.js', env: {} },
  {
    name: 'charge-service',
    entry: 'dist/apps/charge-service/src/main.js',
    env: { HEALTH_PORT: String(port + 1) },
  },
  {
    name: 'subscription-service',
    entry: 'dist/apps/subscription-service/src/main.js',
    env: { HEALTH_PORT: String(port + 2) },
  },
  {
    name: 'refund-cancel-service',
    entry: 'dist/apps/refund-cancel-service/src/main.js',
    env: { HEALTH_PORT: String(port + 3) },
  },
  {
    name: 'webhook-service',
    entry: 'dist/apps/webhook-service/src/main.js',
    env: { HEALTH_PORT: String(port + 4) },
  },
];

let stopping = false;
const children = services.map((service) => {
  const child = spawn(process.execPath, ['--enable-source-maps', service.entry], {
    env: { ...process.env, ...service.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `[${service.name}] `;
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop();
      for (const line of lines) process.stdout.write(prefix + line + '\n');
    });
  }
  child.on('exit', (code, signal) => {
    process.stdout.write(`${prefix}exited (${signal || code})\n`);
    if (!stopping) stop(1);
  });
  return child;
});

function stop(code) {
  if (stopping) return;
  stopping = true;
  let alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of alive) child.kill('SIGTERM');
  const done = () => process.exit(code);
  if (alive.length === 0) return done();
  let remaining = alive.length;
  for (const child of alive) child.once('exit', () => --remaining === 0 && done());
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

async function waitForGateway() {
  const url = `http://127.0.0.1:${port}/heartbeat`;
  for (let i = 0; i < 120 && !stopping; i++) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

waitForGateway().then((up) => {
  if (!up) return;
  process.stdout.write(
    [
      '',
      'Kessai is running.',
      `  base URL     ${credentials.base_url}`,
      `  merchant id  ${credentials.merchant_id}`,
      `  store id     ${credentials.store_id}`,
      `  secret       ${credentials.secret}`,
      `  jwt          ${credentials.jwt}`,
      `  user         ${credentials.user_email} / ${credentials.user_password}  (POST /authenticate)`,
      '',
      '  try:  curl -H "Authorization: Bearer <secret>.<jwt>" ' + credentials.base_url + '/me',
      '  (credentials are also in .kessai/demo-credentials.json; Ctrl-C stops everything)',
      '',
    ].join('\n') + '\n',
  );
});
