#!/usr/bin/env bash
# test:connectors:live: the connectors against the providers' own sandboxes (docs/connectors.md,
# "Before going live"), with test-mode keys: KOMOJU_SECRET_KEY, STRIPE_SECRET_KEY (either or both;
# KOMOJU_API_URL and STRIPE_API_URL as for the services). Opt-in: CI never runs it, and without a
# key it says so and exits 0. A live-mode key is refused: this suite makes payments.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${KOMOJU_SECRET_KEY:-}" ] && [ -z "${STRIPE_SECRET_KEY:-}" ]; then
  echo "test:connectors:live: skipped, no provider key: set KOMOJU_SECRET_KEY and/or STRIPE_SECRET_KEY"
  echo "  (test-mode keys) to run the connectors against KOMOJU's and Stripe's sandboxes. CI never runs"
  echo "  this suite; run it before taking live payments (docs/connectors.md, \"Before going live\")."
  exit 0
fi

for name in KOMOJU_SECRET_KEY STRIPE_SECRET_KEY; do
  value=${!name:-}
  if [ -n "$value" ] && [[ "$value" != sk_test_* && "$value" != rk_test_* ]]; then
    echo "test:connectors:live: $name is not a test-mode key (sk_test_…): refused, this suite makes payments" >&2
    exit 2
  fi
done

exec node_modules/.bin/jest --ci -i --config test/connectors-live/jest.config.js "$@"
