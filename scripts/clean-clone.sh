#!/usr/bin/env bash
# Self-contained, proven: clones this repository's HEAD alone into a scratch folder (nothing beside
# it, no reference data next to it), then as a new user would: `npm ci`, `npm run demo` until it
# serves (the first run builds, saying so), Ctrl-C; then the tests that use the recorded data (the core's, the demo's,
# the host start's, the CLI's). `.ci/run` runs it after the suite; it also runs alone:
#   bash scripts/clean-clone.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d /tmp/tron-safety-clone.XXXXXX)
demo_pid=
cleanup() {
  if [ -n "$demo_pid" ]; then kill "$demo_pid" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT

git clone -q "$repo" "$scratch/repo"
git -C "$scratch/repo" checkout -q "$(git -C "$repo" rev-parse HEAD)"
cd "$scratch/repo"
[ "$(ls -A "$scratch")" = repo ] || { echo "clean-clone: $scratch has something beside the clone" >&2; exit 1; }
echo "clone of $(git rev-parse --short HEAD) alone in $scratch"

npm ci --no-audit --no-fund

# npm run demo, as a user runs it (the same start.mjs, without npm in between so SIGINT reaches it).
PORT=0 node examples/host/start.mjs demo >demo.out 2>demo.err &
demo_pid=$!
for _ in $(seq 1 900); do
  grep -q 'Press Ctrl-C to stop.' demo.out 2>/dev/null && break
  kill -0 "$demo_pid" 2>/dev/null || break
  sleep 1
done
if ! grep -q 'Press Ctrl-C to stop.' demo.out; then
  echo "clean-clone: npm run demo did not come up" >&2
  cat demo.out demo.err >&2
  exit 1
fi
kill -INT "$demo_pid"
wait "$demo_pid"
demo_pid=
grep -q '^building first' demo.err || { echo "clean-clone: the first demo run did not say it was building" >&2; exit 1; }
grep -E '^  \[[0-9]+/[0-9]+\] ' demo.err | tail -n 1
grep -E '^(TRX transfer|USDT transfer, no expectations) ' demo.out
echo "npm run demo: served from the clone and stopped cleanly"

npx tron-safety --version >/dev/null
echo "npx tron-safety: works after the build"

npm test -- packages/core/test examples/host/test/demo examples/host/test/start packages/client/test/cli
