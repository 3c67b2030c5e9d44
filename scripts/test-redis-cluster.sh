#!/usr/bin/env bash
# The suites that exercise every use of Redis — BullMQ queues and workers (charges, refunds,
# subscriptions, webhooks, the outbox relay), rate-limit buckets, idempotency, CVVs, the app-token
# pub/sub — run again against a three-master Redis Cluster on loopback (scripts/redis-cluster.sh), with
# REDIS_CLUSTER=true (docs/operations.md, "Redis Cluster"). Part of `npm test`; alone:
#   npm run test:redis-cluster
set -euo pipefail
cd "$(dirname "$0")/.."
export TEST_DATABASE_URL=${TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/kessai_test}
PORTS=(${REDIS_CLUSTER_PORTS:-7001 7002 7003})
bash scripts/redis-cluster.sh start
# the cluster is this run's own: nothing of it is left running afterwards, on failure too
trap 'bash scripts/redis-cluster.sh stop >/dev/null 2>&1 || true' EXIT
export TEST_REDIS_URL=redis://127.0.0.1:${PORTS[0]} TEST_REDIS_CLUSTER=1
npx jest --ci --maxWorkers="${JEST_MAX_WORKERS:-2}" \
  test/charges/charges-create.e2e-spec.ts test/charges/charges-capture.e2e-spec.ts \
  test/charges/charges-sdk.e2e-spec.ts test/charges/charge-processing.e2e-spec.ts \
  test/platform/outbox-relay.e2e-spec.ts test/gateway/rate-limits.e2e-spec.ts \
  test/gateway/idempotency.e2e-spec.ts test/accounts/app-jwts.e2e-spec.ts \
  test/refunds-cancels/refunds-cancels-sdk.e2e-spec.ts test/subscriptions/subscriptions-engine-sdk.e2e-spec.ts \
  test/webhooks/webhooks.e2e-spec.ts "$@"
