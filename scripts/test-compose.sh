#!/usr/bin/env bash
# `npm run test:compose`: the compose deployment, built and started for real, then an SDK smoke test
# against it (docs/operations.md, "Deploy"):
#  1. a Docker engine and the base images (scripts/compose-images.sh: starts dockerd as root when
#     none answers, builds local stand-ins where no registry is reachable);
#  2. the Kessai image from the Dockerfile (kessai:compose-test);
#  3. docker-compose.yml + docker-compose.host-network.yml: Postgres, Redis, migrate, bootstrap, two
#     gateways, two of every worker service, two consoles and the processor simulator, on loopback
#     ports;
#  4. waits until every container is healthy (its own health check) and the one-shot ones succeeded,
#     until a deadline (KESSAI_COMPOSE_HEALTH_TIMEOUT_S, 600 s): a container marked unhealthy while
#     a dozen start on 2 cores may recover, so only the deadline or a failed one-shot fails the test;
#  5. test/compose-smoke.ts through the official SDK, across both gateways, and the console: signed in
#     on one replica, read on the other;
#  6. `down -v`: containers, network and volumes removed (the images are kept for the next run), on
#     failure too; containers `down` could not remove (a client that gave up) are removed by label.
# `npm run test:compose -- --bridge` starts docker-compose.yml alone instead, as users do: on its own
# bridge network, one gateway, `deploy.replicas` workers, published ports moved to 23000 (gateway),
# 23190 (simulator), 25432 and 26379 (Postgres, Redis), the webhook receiver on the network's gateway
# address. It needs a machine whose containers may talk to each other and to the host.
# Prints how long each step took; the totals also go to .kessai/test-compose.log.
# Exits 0 with a SKIPPED message only when no engine answers and none can be started here.
set -euo pipefail
cd "$(dirname "$0")/.."

PROJECT=${KESSAI_COMPOSE_PROJECT:-kessai-compose-test}
export KESSAI_TAG=compose-test
export KESSAI_NODE_IMAGE=${KESSAI_NODE_IMAGE:-kessai-local/node:20-bookworm-slim}
export KESSAI_POSTGRES_IMAGE=${KESSAI_POSTGRES_IMAGE:-kessai-local/postgres:15}
export KESSAI_REDIS_IMAGE=${KESSAI_REDIS_IMAGE:-kessai-local/redis:7}
HEALTH_TIMEOUT_S=${KESSAI_COMPOSE_HEALTH_TIMEOUT_S:-600}
# Compose v1's client gives up on the engine after 60 s by default, which creating a dozen containers
# on the vfs storage driver can take on 2 cores (it then left them behind in `Created`)
export COMPOSE_HTTP_TIMEOUT=${COMPOSE_HTTP_TIMEOUT:-600} DOCKER_CLIENT_TIMEOUT=${DOCKER_CLIENT_TIMEOUT:-600}
case ${1:-} in
  '') MODE=host ;;
  --bridge) MODE=bridge ;;
  *)
    echo "usage: scripts/test-compose.sh [--bridge]" >&2
    exit 2
    ;;
esac
if [[ $MODE == host ]]; then
  FILES=(-f docker-compose.yml -f docker-compose.host-network.yml)
  GATEWAYS=(http://127.0.0.1:23000 http://127.0.0.1:23010)
  CONSOLES=(http://127.0.0.1:23300 http://127.0.0.1:23310)
  PORTS=(25432 26379 23000 23010 23190 23101 23111 23102 23112 23103 23113 23104 23114 23105 23115 23199 23300 23310)
  CONTAINERS=19
else
  FILES=(-f docker-compose.yml)
  GATEWAYS=(http://127.0.0.1:23000)
  CONSOLES=(http://127.0.0.1:23300)
  PORTS=(25432 26379 23000 23190 23199 23300)
  CONTAINERS=17
fi

say() { echo "test:compose: $*"; }
clock=$(date +%s)
started=$clock
timings=()
lap() { # name
  local now
  now=$(date +%s)
  timings+=("$1 $((now - clock))s")
  say "$1 took $((now - clock))s"
  clock=$now
}

status=0
bash scripts/compose-images.sh || status=$?
if [[ $status -eq 3 ]]; then
  say "SKIPPED: no Docker engine answers and none can be started on this machine (see above)"
  exit 0
elif [[ $status -ne 0 ]]; then
  say "FAILED: scripts/compose-images.sh exited $status"
  exit "$status"
fi
lap "engine and base images"

if docker compose version >/dev/null 2>&1; then
  compose_cmd=(docker compose)
else
  # Debian's Compose v1 honours deploy.replicas only with --compatibility
  compose_cmd=(docker-compose --compatibility)
fi
work=$(mktemp -d)
# fresh keys for this run, from .env.example like `npm start` (a .env of the user's is not read)
node scripts/make-env.js .env.example "$work/compose.env"
# the base images, and the published ports away from the ones this machine's own services hold
# (exported: the environment wins over the env file)
export POSTGRES_IMAGE=$KESSAI_POSTGRES_IMAGE REDIS_IMAGE=$KESSAI_REDIS_IMAGE PORT=23000 \
  SIMULATOR_HOST_PORT=23190 POSTGRES_HOST_PORT=25432 REDIS_HOST_PORT=26379 CONSOLE_PORT=23300
# The smoke test's webhook receiver listens on this machine, a private address: production settings
# let webhooks reach it only as an exact address:port the operator lists (decision 0024). Under
# host networking that is loopback; on a bridge network the network's gateway address, known once
# the network exists (listed below, before the smoke test).
RECEIVER_PORT=23199
export WEBHOOK_ALLOWED_PRIVATE_TARGETS=127.0.0.1:$RECEIVER_PORT
# The deployment as compose resolves it. Under host networking the published ports are dropped:
# host networking ignores them, but Compose v1 refuses them beside network_mode: host, and an
# override file cannot remove them (v2's `!reset` is unknown to v1).
"${compose_cmd[@]}" --env-file "$work/compose.env" "${FILES[@]}" config >"$work/merged.yml"
python3 - "$work/merged.yml" "$work/deploy.yml" "$MODE" <<'EOF'
import sys, yaml
config = yaml.safe_load(open(sys.argv[1]))
services = config["services"]
if sys.argv[3] == "bridge":
    yaml.safe_dump(config, open(sys.argv[2], "w"), default_flow_style=False, sort_keys=False)
    sys.exit(0)
for service in services.values():
    service.pop("ports", None)
# the `-2` services must be their first replica's definition but for the port they listen on
def comparable(service):
    s = dict(service)
    ports = ("PORT", "HEALTH_PORT", "CONSOLE_PORT")
    s["environment"] = {k: v for k, v in s.get("environment", {}).items() if k not in ports}
    test = s.get("healthcheck", {}).get("test")
    if test:
        # the port a health check probes is the replica's own
        s["healthcheck"] = {**s["healthcheck"], "test": [part for part in test if not str(part).isdigit()]}
    return s
bad = [n for n in services if n.endswith("-2") and comparable(services[n]) != comparable(services[n[:-2]])]
if bad:
    sys.exit("test:compose: these services differ from their first replica: " + ", ".join(bad))
print("test:compose: the second replicas are their first replica's definition but for the port")
yaml.safe_dump(config, open(sys.argv[2], "w"), default_flow_style=False, sort_keys=False)
EOF
compose() { "${compose_cmd[@]}" --project-name "$PROJECT" -f "$work/deploy.yml" "$@"; }
down() {
  compose down --volumes --remove-orphans --timeout 20 >/dev/null 2>&1 || true
  # whatever the client could not remove (it gave up, or the engine was slow): by the project's label
  local left
  left=$(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT" 2>/dev/null || true)
  if [[ -n $left ]]; then
    say "removing $(wc -w <<<"$left") container(s) left behind"
    # shellcheck disable=SC2086
    docker rm -f -v $left >/dev/null 2>&1 || true
    docker network rm "${PROJECT}_default" >/dev/null 2>&1 || true
  fi
}
finish() {
  local code=$?
  if [[ $code -ne 0 ]]; then
    say "FAILED; the deployment's last log lines:"
    compose ps || true
    compose logs --no-color --tail 40 2>/dev/null | tail -n 400 || true
  fi
  down
  rm -rf "$work"
  exit "$code"
}
trap finish EXIT

# a run interrupted earlier may have left its containers behind
down
for port in "${PORTS[@]}"; do
  if timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
    say "port $port on 127.0.0.1 is taken: the test deployment needs it"
    exit 1
  fi
done

# The build stage is tagged too (kessai:compose-test-build), so that the image a rebuild replaces
# can be removed with its layers: on vfs every layer is a full copy, and an untagged build stage
# would stay behind, ~1 GB per source change.
image_id() { docker image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
previous=("$(image_id "kessai:$KESSAI_TAG")" "$(image_id "kessai:$KESSAI_TAG-build")")
say "building kessai:$KESSAI_TAG (FROM $KESSAI_NODE_IMAGE)"
# the classic builder: no BuildKit frontend image to pull; the host's network reaches the registry
for target in build runtime; do
  tag=kessai:$KESSAI_TAG
  [[ $target == build ]] && tag=$tag-build
  DOCKER_BUILDKIT=0 docker build --quiet --network host --build-arg "NODE_IMAGE=$KESSAI_NODE_IMAGE" \
    --target "$target" -t "$tag" . >/dev/null
done
current=("$(image_id "kessai:$KESSAI_TAG")" "$(image_id "kessai:$KESSAI_TAG-build")")
for i in 0 1; do
  if [[ -n ${previous[i]} && ${previous[i]} != "${current[i]}" ]]; then
    docker rmi "${previous[i]}" >/dev/null 2>&1 || true
  fi
done
size=$(docker image inspect --format '{{.Size}}' "kessai:$KESSAI_TAG" | awk '{ printf "%.0f MB", $1 / 1e6 }')
lap "image build"
say "kessai:$KESSAI_TAG is $size"

# every long-running container healthy, migrate and bootstrap exited 0; an unhealthy mark is waited
# through (a container slow to answer while the others start recovers), the deadline is not
declare -A reported=()
wait_healthy() {
  deadline=$((SECONDS + HEALTH_TIMEOUT_S))
  while :; do
    mapfile -t ids < <(compose ps -q)
    waiting=()
    for id in "${ids[@]}"; do
      read -r name state health code < <(docker inspect --format \
        '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}} {{.State.ExitCode}}' "$id")
      name=${name#/}
      case "$state/$health" in
        running/healthy | exited/none) ;;
        *) waiting+=("$name($state/$health)") ;;
      esac
      if [[ $health == unhealthy && -z ${reported[$name]:-} ]]; then
        reported[$name]=1
        say "$name is marked unhealthy after $((SECONDS + HEALTH_TIMEOUT_S - deadline))s; waiting for it until the deadline"
      fi
      # a one-shot service (no health check) that failed will not recover
      if [[ $state == exited || $state == dead ]] && [[ $code != 0 ]] && [[ $health == none ]]; then
        say "$name exited with $code"
        exit 1
      fi
    done
    [[ ${#ids[@]} -ge $CONTAINERS && ${#waiting[@]} -eq 0 ]] && break
    if ((SECONDS > deadline)); then
      say "not healthy after ${HEALTH_TIMEOUT_S}s: ${waiting[*]}"
      exit 1
    fi
    sleep 2
  done
}
compose up -d --no-build
wait_healthy
compose ps
lap "up until healthy"

bootstrap=$(compose ps -q bootstrap)
docker logs "$bootstrap" 2>/dev/null | node -e '
  const text = require("fs").readFileSync(0, "utf8");
  process.stdout.write(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1));
' >"$work/credentials.json"
receiver_host=127.0.0.1
if [[ $MODE == bridge ]]; then
  # the host as the containers reach it: the gateway address of the deployment's network, which
  # exists only now; the services that check webhook targets are recreated with it listed
  receiver_host=$(docker network inspect --format '{{range .IPAM.Config}}{{.Gateway}}{{end}}' "${PROJECT}_default")
  python3 - "$work/deploy.yml" "$receiver_host:$RECEIVER_PORT" <<'EOF'
import sys, yaml
config = yaml.safe_load(open(sys.argv[1]))
for service in config["services"].values():
    environment = service.get("environment", {})
    if "WEBHOOK_ALLOWED_PRIVATE_TARGETS" in environment:
        environment["WEBHOOK_ALLOWED_PRIVATE_TARGETS"] = sys.argv[2]
yaml.safe_dump(config, open(sys.argv[1], "w"), default_flow_style=False, sort_keys=False)
EOF
  compose up -d --no-build
  wait_healthy
fi
SMOKE_CONSOLE_URLS=$(IFS=,; echo "${CONSOLES[*]}") \
  SMOKE_RECEIVER_PORT=$RECEIVER_PORT SMOKE_RECEIVER_HOST=$receiver_host TS_NODE_TRANSPILE_ONLY=1 node -r ts-node/register -r tsconfig-paths/register test/compose-smoke.ts "$work/credentials.json" "${GATEWAYS[@]}"
lap "SDK smoke test"

trap - EXIT
down
rm -rf "$work"
lap "down"
total=$(($(date +%s) - started))
summary="passed ($MODE network) in ${total}s ($(IFS=,; echo "${timings[*]}" | sed 's/,/, /g'))"
say "$summary"
mkdir -p .kessai
echo "$(date -u +%FT%TZ) $summary" >>.kessai/test-compose.log
