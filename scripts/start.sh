#!/usr/bin/env bash
# `npm start`: the whole service on this machine. Creates .env with fresh keys on first run, makes
# PostgreSQL and Redis available, builds, applies migrations, creates (or reuses) the demo merchant,
# store and test app token, then runs the gateway on PORT, every worker service and the merchant
# console (CONSOLE_PORT) until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -f .env ]]; then
  node scripts/make-env.js .env.example .env
  echo "start: wrote .env with fresh JWT and vault keys"
else
  node scripts/make-env.js --add-missing .env
fi
# .env fills in what the environment does not already set (so PORT=4000 npm start wins)
while IFS= read -r line || [[ -n $line ]]; do
  [[ $line =~ ^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
  key=${BASH_REMATCH[1]}
  [[ -n ${!key+x} ]] || export "$key=${BASH_REMATCH[2]}"
done < .env

bash scripts/services.sh
echo "start: building"
npm run -s build
echo "start: applying migrations"
npx prisma migrate deploy >/dev/null
credentials=$(node dist/scripts/cli.js bootstrap --json)
exec node scripts/run-all.js "$credentials"
