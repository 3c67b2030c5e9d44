#!/usr/bin/env bash
# Makes the compose deployment runnable on a machine that reaches Debian's packages and the npm
# registry but no image registry (docs/operations.md, "Deploy"):
#  1. a Docker engine: reuses one that answers, else (as root) installs Debian's docker.io and
#     docker-compose and starts `dockerd --storage-driver=vfs` in the background (log: DOCKERD_LOG);
#  2. local stand-ins for the base images, each built once (an image that exists is kept):
#       kessai-local/node:20-bookworm-slim   Debian minbase + this machine's Node.js and npm, its CA
#                                            bundle and npm registry settings, a `node` user (uid 1000)
#       kessai-local/postgres:15             Debian minbase + Debian's postgresql, with an entrypoint
#                                            that initialises PGDATA from POSTGRES_USER/PASSWORD/DB
#       kessai-local/redis:7                 Debian minbase + Debian's redis-server
#     from a `debootstrap --variant=minbase` root made from the Debian mirror this machine's apt
#     uses, imported with `docker import`.
# Re-runnable: every step is skipped when its result is already there.
#
#   bash scripts/compose-images.sh            # engine + images
#   bash scripts/compose-images.sh engine     # engine only
#
# Exit status 0: done; 3: no engine answers and none can be started here (not root, no apt-get,
# or dockerd would not start: its log is shown); anything else: a failure.
set -euo pipefail

NODE_IMAGE=${KESSAI_NODE_IMAGE:-kessai-local/node:20-bookworm-slim}
POSTGRES_IMAGE=${KESSAI_POSTGRES_IMAGE:-kessai-local/postgres:15}
REDIS_IMAGE=${KESSAI_REDIS_IMAGE:-kessai-local/redis:7}
CACHE=${KESSAI_IMAGE_CACHE:-/var/tmp/kessai-images}
DOCKERD_LOG=${DOCKERD_LOG:-/var/log/kessai-dockerd.log}
SUITE=bookworm

log() { echo "compose-images: $*" >&2; }
cannot_start() {
  log "no Docker engine can be started here: $*"
  exit 3
}
apt_install() {
  log "installing $* from Debian's packages"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

ensure_engine() {
  if docker info >/dev/null 2>&1; then
    log "Docker engine answers (reused)"
  else
    [[ $(id -u) -eq 0 ]] || cannot_start "not root, and none answers (start dockerd, or run this as root)"
    command -v apt-get >/dev/null || cannot_start "no apt-get to install Debian's docker.io"
    command -v dockerd >/dev/null || apt_install docker.io
    log "starting dockerd --storage-driver=vfs (log: $DOCKERD_LOG)"
    mkdir -p "$(dirname "$DOCKERD_LOG")"
    # its own session, so that it outlives this script and the shell that ran it
    setsid dockerd --storage-driver=vfs >>"$DOCKERD_LOG" 2>&1 </dev/null &
    local pid=$!
    for _ in $(seq 1 120); do
      docker info >/dev/null 2>&1 && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    if ! docker info >/dev/null 2>&1; then
      tail -n 20 "$DOCKERD_LOG" >&2 || true
      kill "$pid" 2>/dev/null || true
      cannot_start "dockerd did not answer within 60 s"
    fi
    log "dockerd answers (pid $pid)"
  fi
  if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null; then
    [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null || {
      log "neither 'docker compose' nor docker-compose is installed"
      exit 1
    }
    apt_install docker-compose
  fi
}

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# The Debian mirror this machine's apt uses (deb822 .sources or one-line sources.list), else Debian's.
debian_mirror() {
  local uri
  uri=$(
    cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
      /^URIs:/ { uri = $2 } /^Suites:/ { suites = $0 }
      /^$/ { if (uri != "" && suites ~ /(^| )'"$SUITE"'( |$)/) { print uri; exit } uri = ""; suites = "" }
      END { if (uri != "" && suites ~ /(^| )'"$SUITE"'( |$)/) print uri }' | head -n 1
  )
  if [[ -z $uri ]]; then
    uri=$(awk '$1 == "deb" && $0 ~ / '"$SUITE"' / { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' \
      /etc/apt/sources.list 2>/dev/null | head -n 1)
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

# Runs a command in a root with /proc and the host's DNS, never starting services. Its output goes
# to $CACHE/chroot.log (stdout carries the paths that the functions below return), shown when it fails.
in_root() {
  local root=$1
  shift
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  mount -t proc proc "$root/proc"
  local status=0
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    LANG=C.UTF-8 "$@" >>"$CACHE/chroot.log" 2>&1 || status=$?
  umount "$root/proc"
  if [[ $status -ne 0 ]]; then
    log "failed in $root: $*"
    tail -n 20 "$CACHE/chroot.log" >&2
  fi
  return $status
}

# What is not needed in a container: apt's lists and caches, documentation, translations.
slim_root() {
  local root=$1
  in_root "$root" apt-get clean
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* \
    "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/* \
    "$root"/var/cache/debconf/*-old "$root"/var/log/*.log "$root"/var/log/apt/* "$root"/tmp/*
  : >"$root/etc/resolv.conf"
}

# A minbase Debian root, made once and kept in the cache (the start of every stand-in).
base_root() {
  local base=$CACHE/$SUITE-minbase
  if [[ ! -f $base/.complete ]]; then
    command -v debootstrap >/dev/null || apt_install debootstrap
    local mirror
    mirror=$(debian_mirror)
    log "debootstrap --variant=minbase $SUITE from $mirror"
    rm -rf "$base" "$base.tmp"
    mkdir -p "$CACHE"
    debootstrap --variant=minbase "$SUITE" "$base.tmp" "$mirror" >"$CACHE/debootstrap.log" 2>&1 || {
      tail -n 20 "$CACHE/debootstrap.log" >&2
      exit 1
    }
    cat >"$base.tmp/etc/apt/sources.list" <<EOF
deb $mirror $SUITE main
deb $mirror $SUITE-updates main
EOF
    # services are never started inside the root
    printf '#!/bin/sh\nexit 101\n' >"$base.tmp/usr/sbin/policy-rc.d"
    chmod 755 "$base.tmp/usr/sbin/policy-rc.d"
    slim_root "$base.tmp"
    touch "$base.tmp/.complete"
    mv "$base.tmp" "$base"
  fi
  echo "$base"
}

# A working copy of the base root for one stand-in.
fresh_root() {
  local root=$CACHE/$1
  rm -rf "$root"
  cp -a "$(base_root)" "$root"
  rm -f "$root/.complete"
  echo "$root"
}

import_root() { # root image change...
  local root=$1 image=$2
  shift 2
  local changes=()
  for change in "$@"; do changes+=(--change "$change"); done
  tar --numeric-owner -C "$root" -c . | docker import "${changes[@]}" - "$image" >/dev/null
  rm -rf "$root"
  log "imported $image ($(docker image inspect --format '{{.Size}}' "$image" | awk '{ printf "%.0f MB", $1 / 1e6 }'))"
}

build_node_image() {
  image_exists "$NODE_IMAGE" && { log "$NODE_IMAGE exists (kept)"; return; }
  local node npm_dir registry root
  node=$(readlink -f "$(command -v node)")
  npm_dir=$(npm root -g 2>/dev/null)/npm
  [[ -f $npm_dir/bin/npm-cli.js ]] || { log "npm not found at $npm_dir"; exit 1; }
  registry=$(npm config get registry 2>/dev/null)
  log "building $NODE_IMAGE (Node.js $(node --version), npm $(npm --version 2>/dev/null), registry $registry)"
  root=$(fresh_root node)
  install -m 755 "$node" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  # the machine's CA bundle (which may hold the certificate of a proxy in front of the registry)
  mkdir -p "$root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  # npm's registry settings only (never a user's .npmrc: it may hold credentials)
  mkdir -p "$root/usr/local/etc"
  {
    echo "registry=$registry"
    echo "cafile=/etc/ssl/certs/ca-certificates.crt"
    for key in proxy https-proxy noproxy strict-ssl; do
      value=$(npm config get "$key" 2>/dev/null || true)
      [[ -n $value && $value != null && $value != undefined ]] && echo "$key=$value"
    done
  } >"$root/usr/local/etc/npmrc"
  in_root "$root" groupadd --gid 1000 node
  in_root "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  slim_root "$root"
  import_root "$root" "$NODE_IMAGE" \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    'CMD ["node"]'
}

build_postgres_image() {
  image_exists "$POSTGRES_IMAGE" && { log "$POSTGRES_IMAGE exists (kept)"; return; }
  log "building $POSTGRES_IMAGE (Debian's postgresql)"
  local root
  root=$(fresh_root postgres)
  in_root "$root" apt-get update -qq
  in_root "$root" apt-get install -y -qq --no-install-recommends postgresql-common
  # no cluster of Debian's own: the entrypoint initialises PGDATA
  sed -i 's/^#\?\s*create_main_cluster.*/create_main_cluster = false/' \
    "$root/etc/postgresql-common/createcluster.conf"
  in_root "$root" apt-get install -y -qq --no-install-recommends postgresql
  local version
  version=$(ls "$root/usr/lib/postgresql" | sort -V | tail -n 1)
  # JIT compilation is optional: without its provider library the server plans without it (and
  # the stand-in is ~120 MB smaller); LLVM is needed by nothing else here
  rm -rf "$root/usr/lib/postgresql/$version/lib/llvmjit"* "$root/usr/lib/postgresql/$version/lib/bitcode" \
    "$root"/usr/lib/x86_64-linux-gnu/libLLVM-*.so*
  # what the official image's entrypoint does, minimally: on a first start, initdb PGDATA with
  # POSTGRES_USER (superuser, password POSTGRES_PASSWORD, scram over TCP, trust on the socket) and
  # create POSTGRES_DB; always run the server as the postgres user
  cat >"$root/usr/local/bin/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -eu
if [ "${1:-}" = postgres ]; then
  if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chown -R postgres:postgres "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
  fi
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    user=${POSTGRES_USER:-postgres}
    db=${POSTGRES_DB:-$user}
    pwfile=$(mktemp)
    printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >"$pwfile"
    initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" --auth-local=trust \
      --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    if [ "$db" != postgres ]; then createdb --username="$user" "$db"; fi
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    echo "docker-entrypoint: initialised $PGDATA (database $db)"
  fi
fi
exec "$@"
EOF
  chmod 755 "$root/usr/local/bin/docker-entrypoint.sh"
  slim_root "$root"
  import_root "$root" "$POSTGRES_IMAGE" \
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/lib/postgresql/$version/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    'ENV PGDATA=/var/lib/postgresql/data' \
    'ENV LANG=C.UTF-8' \
    'VOLUME /var/lib/postgresql/data' \
    'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
    'EXPOSE 5432' \
    'CMD ["postgres"]'
}

build_redis_image() {
  image_exists "$REDIS_IMAGE" && { log "$REDIS_IMAGE exists (kept)"; return; }
  log "building $REDIS_IMAGE (Debian's redis-server)"
  local root
  root=$(fresh_root redis)
  in_root "$root" apt-get update -qq
  in_root "$root" apt-get install -y -qq --no-install-recommends redis-server
  # like the official image: the server runs as the redis user in /data, with protected mode off
  # (other containers of the deployment connect without a password)
  cat >"$root/usr/local/bin/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -eu
if [ "${1:-}" = redis-server ]; then
  if [ "$(id -u)" = 0 ]; then
    chown -R redis:redis /data
    exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
  fi
  shift
  set -- redis-server --protected-mode no "$@"
fi
exec "$@"
EOF
  chmod 755 "$root/usr/local/bin/docker-entrypoint.sh"
  mkdir -p "$root/data"
  slim_root "$root"
  import_root "$root" "$REDIS_IMAGE" \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'VOLUME /data' \
    'WORKDIR /data' \
    'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
    'EXPOSE 6379' \
    'CMD ["redis-server"]'
}

ensure_engine
[[ ${1:-} == engine ]] && exit 0
build_node_image
build_postgres_image
build_redis_image
