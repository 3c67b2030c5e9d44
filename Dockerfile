# One image for every Kessai process. The app to run is chosen by APP (a build argument that sets
# the default, or an environment variable at run time), or by overriding the command:
#   docker build -t kessai .
#   docker run --init -e APP=charge-service -e HEALTH_PORT=3101 ... kessai
#   docker run --init ... kessai npx --no prisma migrate deploy
#   docker run --init ... kessai node dist/scripts/cli.js bootstrap --json
#   docker run --init -e SIMULATOR_HOST=0.0.0.0 ... kessai node dist/apps/processor-simulator/src/main.js
# docker-compose.yml wires them all together. Written for both builders (BuildKit and the classic
# one): no `# syntax=` line and no RUN --mount, so a machine without a registry can build it
# (scripts/compose-images.sh, docs/operations.md "Deploy").

# Any Debian-based Node.js 20 image with a `node` user works (scripts/compose-images.sh builds a
# local stand-in where no registry is reachable).
ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: every dependency, the Prisma client generated, TypeScript compiled ------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1 \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
# Dependencies first, so that a source change reuses this layer. No install scripts: the only
# ones are Prisma's (an engine download from Prisma's CDN, which nothing here uses: the client is
# the Rust-free one and migrations run on the JavaScript schema engine), msgpackr-extract's (a
# prebuilt binary package is used) and two dev tools' (file watching, lint resolution) that
# build nothing needed.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm cache clean --force
COPY . .
# prisma generate (Rust-free client) + tsc + tsc-alias: dist/apps/<app>/src/main.js (the processor
# simulator's too), dist/scripts/cli.js.
# Nothing connects to a database here, but without DATABASE_URL set prisma generate 6.19 tries to
# download a query engine from Prisma's CDN and fails; a placeholder value avoids that.
# What the runtime stage takes is gathered in /out, so that it is one COPY there (every
# instruction costs a copy of the whole image on the vfs storage driver).
RUN DATABASE_URL=postgresql://build@127.0.0.1:5432/unused npm run build \
  && mkdir /out && cp -r dist prisma prisma.config.ts /out/

# --- runtime: production dependencies only, the compiled code, the migrations --------------------
FROM ${NODE_IMAGE} AS runtime
# the process a container runs unless told otherwise (APP at run time, or another command)
ARG APP=gateway
ENV NODE_ENV=production \
    APP=${APP} \
    CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1 \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
WORKDIR /app
# `prisma` is a production dependency: the compose `migrate` service runs `prisma migrate deploy`
# from this image. The admin CLI's bootstrap remembers the demo credentials in .kessai/ (a volume
# in compose), the one directory the app writes; root owns everything else and the app only reads.
COPY package.json package-lock.json ./
# Prisma ships its query compiler and engines for every database it supports; Kessai loads the
# PostgreSQL ones only. The others and the runtime's source maps are removed (75 MB of the image).
RUN npm ci --omit=dev --ignore-scripts \
  && npm cache clean --force 2>/dev/null \
  && find node_modules/@prisma/client/runtime node_modules/prisma/build -maxdepth 1 -type f \
    \( -name '*.mysql.*' -o -name '*.sqlite.*' -o -name '*.sqlserver.*' -o -name '*.cockroachdb.*' \
    -o -name '*.map' \) -delete \
  && rm -rf /root/.npm /tmp/* \
  && mkdir .kessai && chown node:node .kessai
# dist/, and prisma/ with prisma.config.ts (the migrations and the offline migration adapter that
# migrate deploy loads)
COPY --from=build /out ./
USER node
EXPOSE 3000

# No curl in the slim image, and no new Node.js process per probe (one took longer than its timeout
# while a dozen containers started on 2 cores): bash's /dev/tcp sends one GET to the gateway's
# /heartbeat on PORT, or a worker's /health on HEALTH_PORT (each worker's default health port when
# HEALTH_PORT is unset), and passes on a 200 status line.
HEALTHCHECK --interval=15s --timeout=10s --start-period=180s --retries=5 \
  CMD ["bash", "-c", "case $APP in charge-service) d=3101 ;; subscription-service) d=3102 ;; refund-cancel-service) d=3103 ;; webhook-service) d=3104 ;; ledger-service) d=3105 ;; *) d= ;; esac; if [ -n \"${HEALTH_PORT:-$d}\" ]; then port=${HEALTH_PORT:-$d} path=/health; else port=${PORT:-3000} path=/heartbeat; fi; exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET %s HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n' \"$path\" >&3 && read -r _ code _ <&3 && [ \"$code\" = 200 ]"]

# exec: node itself receives SIGTERM and shuts down gracefully (run with --init / compose init: true
# so that PID 1 is a real init that reaps children and forwards signals)
CMD ["sh", "-c", "exec node --enable-source-maps dist/apps/${APP}/src/main.js"]
