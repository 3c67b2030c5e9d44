#!/usr/bin/env bash
# Fails when prisma/schema.prisma and prisma/migrations disagree: the migrations are replayed into
# a throw-away shadow database and compared with the schema.
set -euo pipefail
cd "$(dirname "$0")/.."
set +e
npx prisma migrate diff --from-migrations prisma/migrations --to-schema-datamodel prisma/schema.prisma --exit-code
status=$?
set -e
case $status in
  0) echo "db:check: migrations match schema.prisma" ;;
  2) echo "db:check: schema.prisma has changes no migration contains; run: npm run db:migrate:new -- <name>" >&2; exit 1 ;;
  *) echo "db:check: could not compare (exit $status)" >&2; exit 1 ;;
esac
