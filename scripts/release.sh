#!/usr/bin/env bash
# The steps of a release, in one place: the Dockerfile runs them, and CI
# runs the same ones outside a container (tests/ops/release.test.ts), since
# no container runtime is available there.
#
#   scripts/release.sh build            npm ci + npm run build, in this checkout
#   scripts/release.sh stage <dir>      copies what the server needs at run time into <dir>
#   scripts/release.sh prod-deps        npm ci --omit=dev (run inside a staged dir)
#   scripts/release.sh start            exec node --import tsx server.ts (NODE_ENV=production)
#   scripts/release.sh healthcheck      exit 0 when GET /healthz answers 200 (Docker HEALTHCHECK)
set -euo pipefail
cd "$(dirname "$0")/.."

# What `node --import tsx server.ts` loads besides node_modules: the server,
# the library it imports (as TypeScript, through tsx, with tsconfig's `@/`
# paths), Next's config and build output, and the build info the service
# version header reports; and the admin CLI (`npx org-events`: bin/, its
# bundle in dist/ and the scripts/cli* it was made from), without which a
# container could create no organization or key. Test files stay behind.
RUNTIME_FILES=(package.json package-lock.json server.ts next.config.js tsconfig.json lib bin dist scripts/cli.ts scripts/cli scripts/release.sh)

case "${1:-}" in
  build)
    npm ci --no-audit --no-fund
    npm run build
    ;;
  stage)
    target="${2:?usage: scripts/release.sh stage <dir>}"
    [ -f .next/BUILD_ID ] || { echo "no build: run scripts/release.sh build first" >&2; exit 1; }
    mkdir -p "$target"
    # Next's build cache (.next/cache) is for rebuilds, not for serving.
    tar -cf - --exclude='*.test.ts' --exclude='.next/cache' "${RUNTIME_FILES[@]}" .next \
      | tar -xf - -C "$target"
    ;;
  prod-deps)
    # tsx is a runtime dependency: server.ts runs through it.
    npm ci --omit=dev --no-audit --no-fund
    ;;
  start)
    export NODE_ENV=production
    # exec: node replaces this shell and receives SIGTERM/SIGINT itself.
    exec node --import tsx server.ts
    ;;
  healthcheck)
    exec node -e '
      const tls = Boolean(process.env.TLS_CERT_FILE);
      const port = process.env.PORT || 3000;
      // The local loopback: the certificate is for the public name, not this one.
      require(tls ? "node:https" : "node:http")
        .get({ host: "127.0.0.1", port, path: "/healthz", rejectUnauthorized: false, timeout: 3000 },
          (res) => process.exit(res.statusCode === 200 ? 0 : 1))
        .on("error", () => process.exit(1))
        .on("timeout", () => process.exit(1));
    '
    ;;
  *)
    sed -n '2,12p' "$0" >&2
    exit 2
    ;;
esac
