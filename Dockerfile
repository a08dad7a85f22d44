# syntax=docker/dockerfile:1
# One image for every Pressroom app; the command chooses the app:
#   docker run pressroom standalone | ingress | render-worker | status-projector | webhook-dispatcher | ops …
# scripts/check-dockerfile.ts (npm run check:dockerfile) runs these same steps on a machine without Docker (CI does, see .ci/run).
# A RUN preceded by a "# check: <command>" line changes the machine itself (apt, users): the check runs
# <command> instead, which proves the same thing without changing the host.

ARG NODE_IMAGE=node:22.20.0-bookworm-slim

# ---- build: production dependencies, resolved from the lock file ----
FROM ${NODE_IMAGE} AS build
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY schemas ./schemas
COPY libs ./libs
COPY apps ./apps
COPY infra/docker ./infra/docker
COPY scripts/run-ts.mjs ./scripts/run-ts.mjs
RUN npm ci --omit=dev --no-audit --no-fund
# The image runs the TypeScript sources as `npm start` does (scripts/run-ts.mjs: Node 22's own type
# stripping; tsx, a runtime dependency, where Node has none): nothing to compile.
RUN rm -rf libs/testing && find . -name '*.spec.ts' -not -path './node_modules/*' -delete
RUN node scripts/run-ts.mjs apps/ops/src/main.ts --help > /dev/null

# ---- runtime: Node, Debian's Chromium headless shell and fonts, a non-root user ----
FROM ${NODE_IMAGE} AS runtime
# check: apt-get install --simulate --no-install-recommends chromium-headless-shell fonts-liberation fonts-dejavu-core ca-certificates
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell fonts-liberation fonts-dejavu-core ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# check: command -v groupadd useradd
RUN groupadd --gid 10001 pressroom && useradd --uid 10001 --gid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin pressroom
WORKDIR /app
COPY --from=build /app /app
ENV NODE_ENV=production \
    CHROMIUM_PATH=/usr/bin/chromium-headless-shell \
    PRESSROOM_DATA_DIR=/data \
    PORT=3000
# check: command -v chown chmod
RUN mkdir -p /data && chown 10001:10001 /data && chmod 0750 /data
VOLUME /data
USER 10001:10001
EXPOSE 3000
ENTRYPOINT ["/app/infra/docker/pressroom"]
CMD ["standalone"]
