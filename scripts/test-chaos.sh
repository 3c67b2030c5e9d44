#!/usr/bin/env bash
# `npm run test:chaos`: the fault campaign of issue 28 (test/chaos/chaos.ts). The services run as
# processes from their TypeScript entry points against a Postgres cluster (initdb) and a Redis of
# the run's own, on free loopback ports, so it needs PostgreSQL's server binaries and redis-server
# but no running service, and disturbs none. At most 6 minutes; every process it starts is stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run -s db:generate
TS_NODE_TRANSPILE_ONLY=1 exec node -r ts-node/register -r tsconfig-paths/register test/chaos/chaos.ts
