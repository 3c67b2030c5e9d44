#!/usr/bin/env bash
# Makes PostgreSQL and Redis available at DATABASE_URL and REDIS_URL: reuses servers that answer,
# otherwise starts local ones (installing Debian's packages when they are missing and we are root),
# otherwise says exactly what to do. Then creates the database named in DATABASE_URL if missing.
set -euo pipefail
cd "$(dirname "$0")/.."

DATABASE_URL=${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/kessai}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}

hostport() { # URL -> "host port"
  node -e 'const u=new URL(process.argv[1]); console.log(u.hostname.replace(/^\[|\]$/g,""), u.port || process.argv[2])' "$1" "$2"
}
answers() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }
is_local() { [[ "$1" == 127.* || "$1" == localhost || "$1" == ::1 ]]; }
wait_for() { for _ in $(seq 1 30); do answers "$1" "$2" && return 0; sleep 0.5; done; return 1; }
apt_install() {
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "services: installing $* from Debian's packages" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    return 1
  fi
}

read -r PG_HOST PG_PORT < <(hostport "$DATABASE_URL" 5432)
read -r REDIS_HOST REDIS_PORT < <(hostport "$REDIS_URL" 6379)

if answers "$PG_HOST" "$PG_PORT"; then
  echo "services: PostgreSQL answers at $PG_HOST:$PG_PORT (reused)"
elif is_local "$PG_HOST"; then
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then apt_install postgresql || true; fi
  if ls /etc/postgresql/*/main >/dev/null 2>&1; then
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    echo "services: starting local PostgreSQL $version"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  fi
  wait_for "$PG_HOST" "$PG_PORT" || {
    echo "services: PostgreSQL is not answering at $PG_HOST:$PG_PORT and could not be started here." >&2
    echo "  Start one (Debian: apt-get install postgresql && pg_ctlcluster <version> main start)," >&2
    echo "  or run 'docker compose up -d postgres' with DATABASE_URL=postgresql://postgres:postgres@127.0.0.1:5432/kessai," >&2
    echo "  or point DATABASE_URL at a running server." >&2
    exit 1
  }
else
  echo "services: PostgreSQL at $PG_HOST:$PG_PORT does not answer (remote host: not starting it)" >&2
  exit 1
fi

if answers "$REDIS_HOST" "$REDIS_PORT"; then
  echo "services: Redis answers at $REDIS_HOST:$REDIS_PORT (reused)"
elif is_local "$REDIS_HOST"; then
  command -v redis-server >/dev/null || apt_install redis-server || true
  if command -v redis-server >/dev/null; then
    echo "services: starting local Redis on port $REDIS_PORT"
    mkdir -p .kessai
    redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
      --dir "$PWD/.kessai" --logfile "$PWD/.kessai/redis.log"
  fi
  wait_for "$REDIS_HOST" "$REDIS_PORT" || {
    echo "services: Redis is not answering at $REDIS_HOST:$REDIS_PORT and could not be started here." >&2
    echo "  Start one (Debian: apt-get install redis-server && redis-server --daemonize yes)," >&2
    echo "  or run 'docker compose up -d redis', or point REDIS_URL at a running server." >&2
    exit 1
  }
else
  echo "services: Redis at $REDIS_HOST:$REDIS_PORT does not answer (remote host: not starting it)" >&2
  exit 1
fi

DATABASE_URL="$DATABASE_URL" node scripts/ensure-database.js
