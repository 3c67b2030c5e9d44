# syntax=docker/dockerfile:1
# One image for every Kessai process. The app to run is chosen by APP (a build argument that sets
# the default, or an environment variable at run time), or by overriding the command:
#   docker build -t kessai .
#   docker run --init -e APP=charge-service -e HEALTH_PORT=3101 ... kessai
#   docker run --init ... kessai npx --no prisma migrate deploy
#   docker run --init ... kessai node dist/scripts/cli.js bootstrap --json
#   docker run --init -e SIMULATOR_HOST=0.0.0.0 ... kessai node dist/apps/processor-simulator/src/main.js
# docker-compose.yml wires them all together.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1 \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
# Dependencies first, so that a source change reuses this layer. (@prisma/engines' postinstall
# tries Prisma's CDN and gives up after a few seconds; nothing here needs it.)
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
# prisma generate (Rust-free client) + tsc + tsc-alias: dist/apps/<app>/src/main.js (the processor
# simulator's too), dist/scripts/cli.js.
# Nothing connects to a database here, but without DATABASE_URL set prisma generate 6.19 tries to
# download a query engine from Prisma's CDN and fails; a placeholder value avoids that.
RUN DATABASE_URL=postgresql://build@127.0.0.1:5432/unused npm run build

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1 \
    npm_config_update_notifier=false
# node_modules is copied whole, dev dependencies included: `prisma migrate deploy` (run from this
# image by the compose `migrate` service) needs the `prisma` CLI, which package.json lists as a dev
# dependency, and `npm prune --omit=dev` would remove it. Moving `prisma` to dependencies would
# allow `npm ci --omit=dev` here and a much smaller image. Root owns these files; the app only
# reads them.
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# the migrations and prisma.config.ts (with the offline migration adapter it loads) for migrate deploy
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/prisma.config.ts /app/package.json ./
# the admin CLI's bootstrap remembers the demo credentials in .kessai/ (a volume in compose)
RUN mkdir .kessai && chown node:node .kessai
USER node

ARG APP=gateway
ENV APP=${APP}
EXPOSE 3000

# No curl in the slim image: Node's fetch probes the gateway's /heartbeat on PORT, or a worker's
# /health on HEALTH_PORT (each worker's default health port when HEALTH_PORT is unset).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "const w={'charge-service':3101,'subscription-service':3102,'refund-cancel-service':3103,'webhook-service':3104};const e=process.env,h=e.HEALTH_PORT||w[e.APP];fetch(h?'http://127.0.0.1:'+h+'/health':'http://127.0.0.1:'+(e.PORT||3000)+'/heartbeat').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"

# exec: node itself receives SIGTERM and shuts down gracefully (run with --init / compose init: true
# so that PID 1 is a real init that reaps children and forwards signals)
CMD ["sh", "-c", "exec node --enable-source-maps dist/apps/${APP}/src/main.js"]
