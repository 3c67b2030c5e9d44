#!/usr/bin/env bash
# A Redis Cluster of three masters on loopback (ports REDIS_CLUSTER_PORTS, default 7001 7002 7003),
# made with the machine's redis-server and redis-cli, for the Cluster test run and benchmarks
# (docs/operations.md, "Redis Cluster"). Idempotent: nodes that answer are reused, a cluster that is
# formed already is left as it is.
#   bash scripts/redis-cluster.sh start   # start (or reuse), then wait until the cluster is ok
#   bash scripts/redis-cluster.sh stop    # shut the nodes down and forget their state
set -euo pipefail
PORTS=(${REDIS_CLUSTER_PORTS:-7001 7002 7003})
DIR=${REDIS_CLUSTER_DIR:-/tmp/kessai-redis-cluster}

state() { redis-cli -p "${PORTS[0]}" cluster info 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_state://p'; }

case "${1:-start}" in
  start)
    command -v redis-server >/dev/null || { echo "redis-cluster: redis-server is not installed" >&2; exit 1; }
    mkdir -p "$DIR"
    for port in "${PORTS[@]}"; do
      if redis-cli -p "$port" ping >/dev/null 2>&1; then continue; fi
      redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --cluster-enabled yes \
        --cluster-config-file "$DIR/nodes-$port.conf" --cluster-node-timeout 5000 \
        --save "" --appendonly no --dir "$DIR" --logfile "$DIR/redis-$port.log"
    done
    for port in "${PORTS[@]}"; do
      for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    done
    if [ "$(state)" != ok ]; then
      known=$(redis-cli -p "${PORTS[0]}" cluster info | tr -d '\r' | sed -n 's/^cluster_known_nodes://p')
      if [ "${known:-1}" -lt "${#PORTS[@]}" ]; then
        redis-cli --cluster create $(printf '127.0.0.1:%s ' "${PORTS[@]}") --cluster-replicas 0 --cluster-yes >/dev/null
      fi
      for _ in $(seq 1 100); do [ "$(state)" = ok ] && break; sleep 0.1; done
    fi
    [ "$(state)" = ok ] || { echo "redis-cluster: the cluster did not form (logs in $DIR)" >&2; exit 1; }
    echo "redis-cluster: ok on ports ${PORTS[*]}"
    ;;
  stop)
    for port in "${PORTS[@]}"; do redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; done
    rm -rf "$DIR"
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
