#!/usr/bin/env bash
# `npm run test:start-cluster`: `npm run start:cluster` for real — two gateways and two of every
# worker service as plain processes (scripts/run-all.js with REPLICAS=2) against one Postgres and one
# Redis — then the SDK smoke test (test/compose-smoke.ts: token → charge → refund → subscription →
# signed webhooks, alternating between the gateways), then a graceful stop that every process must
# survive with exit 0. Run twice: on the single Redis at REDIS_URL, then on the three-master Redis
# Cluster of scripts/redis-cluster.sh (REDIS_CLUSTER=true). A scratch database and Redis prefix per
# run; nothing of the developer's (.env, .kessai/) is read or written. Part of `npm test`.
#   START_CLUSTER_REDIS=single|cluster|both (both)  START_CLUSTER_PORT (3600: gateways on 3600 and 3610)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PG_BASE=${TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/kessai_test}
PG_BASE=${PG_BASE%/*}
BASE_PORT=${START_CLUSTER_PORT:-3600}
say() { echo "test:start-cluster: $*"; }

work=$(mktemp -d)
runner=
database=
# the Redis Cluster this script started (a cluster that answered before is left running)
cluster_started=
cleanup() {
  if [[ -n $runner ]] && kill -0 "$runner" 2>/dev/null; then kill -TERM "$runner" 2>/dev/null || true; wait "$runner" 2>/dev/null || true; fi
  if [[ -n $database ]]; then psql "$PG_BASE/postgres" -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true; fi
  if [[ -n $cluster_started ]]; then bash scripts/redis-cluster.sh stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

say "building"
npm run -s build

# a deployment's settings: fresh keys from .env.example (as npm start writes them), the scratch
# database and prefix, loopback ports; called inside each subshell that needs them
load_env() {
  set -a
  # shellcheck disable=SC1091
  source "$work/env"
  DATABASE_URL="$PG_BASE/$database"
  REDIS_PREFIX="sc_${database#kessai_cluster_}"
  PORT=$BASE_PORT
  PUBLIC_BASE_URL="http://127.0.0.1:$BASE_PORT"
  PROCESSOR_TEST_URL="http://127.0.0.1:$((BASE_PORT + 90))"
  PROCESSOR_CALLBACK_BASE_URL="http://127.0.0.1:$BASE_PORT"
  LOG_LEVEL=warn
  if [[ $1 == cluster ]]; then
    REDIS_URL="redis://127.0.0.1:${REDIS_CLUSTER_PORTS%% *}"
    REDIS_CLUSTER=true
  else
    REDIS_CLUSTER=false
  fi
  set +a
}

run_once() {
  local redis_mode=$1
  database="kessai_cluster_$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  node scripts/make-env.js .env.example "$work/env" >/dev/null
  if [[ $redis_mode == cluster ]]; then
    redis-cli -p "${REDIS_CLUSTER_PORTS%% *}" ping >/dev/null 2>&1 || cluster_started=1
    bash scripts/redis-cluster.sh start >/dev/null
  fi
  (
    load_env "$redis_mode"
    node scripts/ensure-database.js >/dev/null
    npx prisma migrate deploy >/dev/null
    # the CLI keeps the demo credentials under its working directory's .kessai/: the scratch one
    cd "$work" && node "$ROOT/dist/scripts/cli.js" bootstrap --json >"$work/credentials.json"
  )
  (
    load_env "$redis_mode"
    REPLICAS=2 exec node scripts/run-all.js "$(cat "$work/credentials.json")"
  ) >"$work/run-all.log" 2>&1 &
  runner=$!
  local gateways=("http://127.0.0.1:$BASE_PORT" "http://127.0.0.1:$((BASE_PORT + 10))")
  # ready: both gateways and every worker's health endpoint (run-all: PORT + 10·i + 1…5)
  local ready=0
  for _ in $(seq 1 240); do
    ready=1
    for replica in 0 10; do
      for offset in 0 1 2 3 4 5; do
        local path=/health
        [[ $offset == 0 ]] && path=/heartbeat
        curl -fsS -o /dev/null 2>/dev/null "http://127.0.0.1:$((BASE_PORT + replica + offset))$path" || ready=0
      done
    done
    ((ready)) && break
    kill -0 "$runner" 2>/dev/null || break
    sleep 0.5
  done
  if ((!ready)); then
    say "not ready ($redis_mode Redis); run-all's output:"
    tail -n 60 "$work/run-all.log"
    return 1
  fi
  say "$redis_mode Redis: 2 gateways and 2 of every worker service answer; SDK smoke test"
  if ! TS_NODE_TRANSPILE_ONLY=1 node -r ts-node/register -r tsconfig-paths/register test/compose-smoke.ts \
    "$work/credentials.json" "${gateways[@]}"; then
    say "smoke test failed ($redis_mode Redis); run-all's output:"
    tail -n 60 "$work/run-all.log"
    return 1
  fi
  # a graceful stop: every process drains and exits 0 (run-all exits with 0 only then)
  kill -TERM "$runner"
  local code=0
  wait "$runner" || code=$?
  runner=
  # the simulator, 2 × (gateway + 5 workers) and the console, each "exited (0)"
  local clean
  clean=$(grep -cE '\] exited \(0\)$' "$work/run-all.log" || true)
  if ((code != 0)) || ((clean != 14)) || grep -E '\] exited \(' "$work/run-all.log" | grep -vqE 'exited \(0\)$'; then
    say "a process did not stop cleanly ($redis_mode Redis):"
    grep -E '\] exited' "$work/run-all.log" || true
    return 1
  fi
  psql "$PG_BASE/postgres" -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null
  database=
  say "$redis_mode Redis: passed, every process stopped with exit 0"
}

export REDIS_CLUSTER_PORTS=${REDIS_CLUSTER_PORTS:-7001 7002 7003}
case ${START_CLUSTER_REDIS:-both} in
  single) run_once single ;;
  cluster) run_once cluster ;;
  both) run_once single && run_once cluster ;;
  *) say "START_CLUSTER_REDIS must be single, cluster or both" && exit 2 ;;
esac
