# syntax=docker/dockerfile:1
# org-events: build once, run with production dependencies only, as a
# non-root user, node as PID 1 (it handles SIGTERM: in-flight requests
# finish, then it exits). The steps are scripts/release.sh's, which CI runs
# outside a container too (tests/ops/release.test.ts).
#
#   docker build -t org-events .
#   docker compose up          (compose.yaml: with PostgreSQL 15 and Redis)

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: every dependency, `next build` -----------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV NEXT_TELEMETRY_DISABLED=1
COPY . .
RUN scripts/release.sh build && scripts/release.sh stage /release

# --- runtime dependencies: npm ci --omit=dev in the staged tree --------------
FROM ${NODE_IMAGE} AS runtime-deps
WORKDIR /app
COPY --from=build /release/ ./
RUN scripts/release.sh prod-deps && npm cache clean --force

# --- the image ----------------------------------------------------------------
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    HOSTNAME=0.0.0.0 \
    DATABASE_URL=file:/data/org-events.db
WORKDIR /app
# Owned by root, readable by all: the server cannot rewrite its own code.
COPY --from=runtime-deps /app ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=40s --retries=3 \
  CMD ["scripts/release.sh", "healthcheck"]
STOPSIGNAL SIGTERM
# Exec form: node is PID 1 and gets the signals (no shell in between).
CMD ["node", "--import", "tsx", "server.ts"]
