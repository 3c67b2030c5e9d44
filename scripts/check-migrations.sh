#!/usr/bin/env bash
# db:check: the migrations' folders are in the order they reached the branch (scripts/migrations.ts:
# a deployment and a fresh database apply them in one order), and prisma/schema.prisma and
# prisma/migrations agree (the migrations are replayed into a throw-away shadow database and compared
# with the schema). Both are checked; either failing fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
TS_NODE_TRANSPILE_ONLY=1 node -r ts-node/register scripts/migrations.ts check || status=1
set +e
npx prisma migrate diff --from-migrations prisma/migrations --to-schema-datamodel prisma/schema.prisma --exit-code
diff=$?
set -e
case $diff in
  0) echo "db:check: migrations match schema.prisma" ;;
  2) echo "db:check: schema.prisma has changes no migration contains; run: npm run db:migrate:new -- <name>" >&2; status=1 ;;
  *) echo "db:check: could not compare (exit $diff)" >&2; status=1 ;;
esac
exit $status
