# syntax=docker/dockerfile:1
# kraken-migrate: one image, its commands chosen by the container's command (docker-compose.yml):
#   worker            kraken-migrate worker              (workflows + activities; scale out freely)
#   events receiver   kraken-migrate events serve        (EventBridge API-destination webhook + SQS consumer)
#   codec server      kraken-migrate codec serve         (payload codec for the Temporal Web UI)
#   migrations        kraken-migrate db migrate          (one-shot, before any worker)
#   the CLI           kraken-migrate run start|status|report|…
#
#   docker build -t kraken-migrate .
#   docker run --rm kraken-migrate --help

ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Production dependencies only (tsx, a dependency, runs the TypeScript sources: no build step,
#    so the stack traces a user reads are the sources in the repository). --workspaces=false: the
#    lockfile also holds the proving ground's package (harness/, not in the build context), which
#    npm then leaves out with all of its dependencies.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --workspaces=false --no-audit --no-fund && npm cache clean --force

# 2. The runtime: sources and dependencies owned by root and read-only to the unprivileged user
#    that runs them.
FROM ${NODE_IMAGE} AS runtime
# The workers' build ID (Worker Versioning): the image has no .git to read the commit from, so the
# build passes it: docker build --build-arg KRAKEN_BUILD_ID=0.1.0+$(git rev-parse --short=12 HEAD) .
# Left empty, the worker refuses to start and names the variable (workers/deployment-version.ts).
ARG KRAKEN_BUILD_ID
ENV NODE_ENV=production \
    KRAKEN_MIGRATE_MODE=production \
    KRAKEN_BUILD_ID=${KRAKEN_BUILD_ID}
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
# The product only: .dockerignore is an allow-list of the product's folders (test/unit/house/image-files.test.ts).
COPY . .
# The image's own non-root user (uid 1000).
USER node
ENTRYPOINT ["node", "bin/kraken-migrate.js"]
CMD ["--help"]
