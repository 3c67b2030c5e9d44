#!/usr/bin/env bash
# The whole test suite: services, generated client, type check, schema/migration agreement, then
# unit and end-to-end tests against real PostgreSQL and Redis. Tests never touch DATABASE_URL's
# database: they use TEST_DATABASE_URL's server and make their own databases there.
set -euo pipefail
cd "$(dirname "$0")/.."

export TEST_DATABASE_URL=${TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/kessai_test}
export TEST_REDIS_URL=${TEST_REDIS_URL:-redis://127.0.0.1:6379}
DATABASE_URL=$TEST_DATABASE_URL REDIS_URL=$TEST_REDIS_URL bash scripts/services.sh

# the hosted checkout's browser tests drive Debian's chromium (never a browser download of
# Playwright's), with a Japanese font for the Japanese pages' screenshots
if [ ! -x /usr/bin/chromium ] || [ ! -d /usr/share/fonts/opentype/ipafont-gothic ]; then
  SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
  $SUDO apt-get update -qq
  # no recommends: chromium alone brought 116 packages with them
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-ipafont-gothic
fi

npm run -s db:generate
npm run -s typecheck
DATABASE_URL=$TEST_DATABASE_URL npm run -s db:check

results=$(mktemp)
# two suites at a time: every suite has its own database, Redis prefix and ports, and most of a suite's
# time is waiting on its services, so a second worker fills the idle core (jest's default on 2 cores is
# one). Measured back to back on the same 2-core machine: 166 s with one worker, 98 s with two, for
# the same six e2e suites. JEST_MAX_WORKERS=1 runs them one by one again.
workers=${JEST_MAX_WORKERS:-2}
set +e
# jest itself, not through npx, so that $! is the process to stop
node_modules/.bin/jest --ci --maxWorkers="$workers" --json --outputFile="$results" "$@" &
jest=$!
# jest writes its results once every suite has run, then exits when nothing of the tests is left
# running. A leaked handle (a server, a timer a failed suite left behind) kept it alive until CI's
# own deadline, an hour later: give it a minute after the results, then stop it and fail the run
while kill -0 "$jest" 2>/dev/null && [ ! -s "$results" ]; do sleep 2; done
for _ in $(seq 30); do kill -0 "$jest" 2>/dev/null || break; sleep 2; done
if kill -0 "$jest" 2>/dev/null; then
  echo "jest did not exit 60 s after its results: a suite left something running (see 'Jest did not exit' above)" >&2
  kill -TERM "$jest" 2>/dev/null
  for _ in $(seq 10); do kill -0 "$jest" 2>/dev/null || break; sleep 1; done
  kill -KILL "$jest" 2>/dev/null
  wait "$jest" 2>/dev/null
  status=1
else
  wait "$jest"
  status=$?
fi
set -e
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
  if (r.numTotalTests === 0) { console.error("jest ran no test"); process.exit(1); }
  // where the time goes: the ten slowest suites (a CI run has a budget; see .ci/run)
  const slowest = r.testResults
    .map((s) => ({ name: require("path").relative(process.cwd(), s.name), ms: s.endTime - s.startTime }))
    .sort((a, b) => b.ms - a.ms).slice(0, 10);
  console.log("jest: slowest suites: " + slowest.map((s) => `${s.name} ${(s.ms / 1000).toFixed(0)} s`).join(", "));
' "$results" || status=1
rm -f "$results"

# the same system on a Redis Cluster: the suites that use every part of Redis
if [ "${KESSAI_SKIP_REDIS_CLUSTER:-}" != 1 ] && [ $# -eq 0 ]; then
  bash scripts/test-redis-cluster.sh || status=1
fi
# npm run start:cluster as plain processes (2 of everything), on one Redis and on the Cluster,
# paid through the SDK across both gateways
if [ "${KESSAI_SKIP_START_CLUSTER:-}" != 1 ] && [ $# -eq 0 ]; then
  bash scripts/test-start-cluster.sh || status=1
fi
exit $status
