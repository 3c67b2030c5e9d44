// Runs the processor simulator (the outside world test-mode charges reach at PROCESSOR_TEST_URL),
// then the gateway, every worker service and the merchant console as child processes, prefixes their output, prints the
// base URL and demo credentials once the gateway answers, and stops them all gracefully on Ctrl-C
// or SIGTERM (each gets SIGTERM and SHUTDOWN_TIMEOUT_MS to finish its in-flight work).
// REPLICAS=N (npm run start:cluster: 2) runs N of each: gateway i on PORT + 10·(i-1), its workers'
// health ports at PORT + 10·(i-1) + 1…5, all against the one Postgres and Redis.
const { spawn } = require('child_process');

const credentials = JSON.parse(process.argv[2]);
const port = Number(process.env.PORT || 3000);
// the simulator listens where PROCESSOR_TEST_URL points (default http://127.0.0.1:3190), unless
// SIMULATOR_PORT / SIMULATOR_HOST say otherwise
const processorUrl = new URL(process.env.PROCESSOR_TEST_URL || 'http://127.0.0.1:3190');
const simulatorPort = process.env.SIMULATOR_PORT || processorUrl.port || '80';
const simulatorHost = process.env.SIMULATOR_HOST || processorUrl.hostname.replace(/^\[|\]$/g, '');
const simulator = {
  name: 'processor-simulator',
  entry: 'dist/apps/processor-simulator/src/main.js',
  env: { SIMULATOR_PORT: simulatorPort, SIMULATOR_HOST: simulatorHost },
};
const replicas = Math.max(1, Math.floor(Number(process.env.REPLICAS || 1)));
const gatewayPorts = Array.from({ length: replicas }, (_, i) => port + 10 * i);
// the merchant console on CONSOLE_PORT (3300): one, whatever REPLICAS says (its sessions are in Postgres)
const consolePort = Number(process.env.CONSOLE_PORT || 3300);
const consoleService = {
  name: 'console',
  entry: 'dist/apps/console/src/main.js',
  env: { CONSOLE_PORT: String(consolePort) },
};
const services = gatewayPorts.flatMap((base, i) => {
  const suffix = replicas > 1 ? `-${i + 1}` : '';
  return [
    { name: `gateway${suffix}`, entry: 'dist/apps/gateway/src/main.js', env: { PORT: String(base) } },
    ...[
      'charge-service',
      'subscription-service',
      'refund-cancel-service',
      'webhook-service',
      'ledger-service',
    ].map((name, k) => ({
      name: `${name}${suffix}`,
      entry: `dist/apps/${name}/src/main.js`,
      env: { HEALTH_PORT: String(base + k + 1) },
    })),
  ];
});

let stopping = false;
const children = [];
function startChild(service) {
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
  children.push(child);
  return child;
}

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

// node:http, not fetch: fetch refuses the Fetch spec's "bad ports" (e.g. 4190) outright
function answers(url) {
  return new Promise((resolve) => {
    const request = require('http').get(url, { timeout: 2000 }, (response) => {
      response.resume();
      resolve(response.statusCode >= 200 && response.statusCode < 300);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

async function waitFor(url) {
  for (let i = 0; i < 120 && !stopping; i++) {
    if (await answers(url)) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

async function main() {
  // first the outside world, so that the first charge-service job finds a processor
  startChild(simulator);
  const simulatorHealth = `http://${simulatorHost.includes(':') ? `[${simulatorHost}]` : simulatorHost}:${simulatorPort}/_sim/health`;
  if (!(await waitFor(simulatorHealth))) {
    if (!stopping) process.stdout.write(`[run-all] the simulator does not answer at ${simulatorHealth}\n`);
    return stop(1);
  }
  for (const service of [...services, consoleService]) startChild(service);
  for (const gatewayPort of gatewayPorts)
    if (!(await waitFor(`http://127.0.0.1:${gatewayPort}/heartbeat`))) return;
  if (!(await waitFor(`http://127.0.0.1:${consolePort}/health`))) return;
  process.stdout.write(
    [
      '',
      'Kessai is running.',
      `  base URL     ${credentials.base_url}`,
      ...(replicas > 1
        ? [
            `  gateways     ${gatewayPorts.map((p) => `http://127.0.0.1:${p}`).join(', ')} (${replicas} of every service)`,
          ]
        : []),
      `  merchant id  ${credentials.merchant_id}`,
      `  store id     ${credentials.store_id}`,
      `  secret       ${credentials.secret}`,
      `  jwt          ${credentials.jwt}`,
      ...(credentials.user_password === null
        ? [
            `  user         ${credentials.user_email} was removed in the console and stays removed`,
            `  console      http://127.0.0.1:${consolePort}  (sign in with a user of yours)`,
          ]
        : [
            `  user         ${credentials.user_email} / ${credentials.user_password}  (POST /authenticate, the console)`,
            `  console      http://127.0.0.1:${consolePort}  (sign in with the user above)`,
          ]),
      `  processor    ${processorUrl.origin} (the simulator; test cards: docs/processor-simulator.md)`,
      '',
      '  try:  curl -H "Authorization: Bearer <secret>.<jwt>" ' + credentials.base_url + '/me',
      '  (credentials are also in .kessai/demo-credentials.json; Ctrl-C stops everything)',
      '',
    ].join('\n') + '\n',
  );
}

main();
