# The scanrelay image: built from source, runs scanrelay as PUID:PGID (a non-root user), keeps config, queue and log
# under /config.
# Node 24 LTS. better-sqlite3 13 ships prebuilt Node-API binaries and has no install script, so no compiler is
# needed and install scripts are skipped (prepare too: the build is run by name). esbuild (the build's bundler)
# finds its binary in its optional platform package, so optional packages are installed for the build.
# The build runs on the builder's own platform, also for an arm64 image: what it hands over is platform-free
# (JavaScript, and better-sqlite3's prebuilt binaries for every platform), so only the last stage's one RUN is
# emulated (.github/workflows/image.yml builds amd64 and arm64).
FROM --platform=$BUILDPLATFORM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY scripts/bundle.mjs ./scripts/
COPY src ./src
RUN npm ci --ignore-scripts && npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
# glibc's malloc gives back what it frees (docs/configuration.md, "How Node is started").
ENV MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY --chmod=0755 docker/entrypoint.sh docker/healthcheck.mjs ./
# /config holds config.json, queue.db and the log, and is the only path the container writes: it runs with
# --read-only and a tmpfs /tmp. The image starts as root only for docker/entrypoint.sh, which gives /config to
# PUID:PGID (1000:1000 unless set), applies UMASK and runs scanrelay as that user; with --user it only checks
# /config and says the chown that fixes it. The folder belongs to the built-in "node" user (uid 1000), so a new
# named volume starts out as that user's. `scanrelay` is on PATH (docker/scanrelay: the ENTRYPOINT's Node flags)
# and finds the relay's own files, so a command is `docker exec -u 1000:1000 scanrelay scanrelay <command>`
# (as PUID:PGID: what it writes in /config stays theirs).
ENV SCANRELAY_CONFIG=/config/config.json SCANRELAY_QUEUEFILE=/config/queue.db SCANRELAY_LOGFILE=/config/scanrelay.log
COPY --chmod=0755 docker/scanrelay /usr/local/bin/scanrelay
RUN mkdir -p /config && chown node:node /config
VOLUME ["/config"]
EXPOSE 3468
# /health?ready is 503 until the queue is open and every media server has been asked once (at most 30 s); the
# script asks the port and address the server listens on (SERVER_PORT, SERVER_IP: environment, else config.json).
HEALTHCHECK --interval=30s --timeout=5s --start-period=45s --retries=3 \
  CMD ["/app/entrypoint.sh", "healthcheck", "node", "/app/healthcheck.mjs", "/config/config.json"]
# The Node flags are npm start's: heap options that hold memory down under load (docs/configuration.md, "How Node is started").
ENTRYPOINT ["/app/entrypoint.sh", "node", "--max-semi-space-size=8", "--max-old-space-size=512", "dist/scanrelay.mjs", "--config", "/config/config.json", "--queuefile", "/config/queue.db", "--logfile", "/config/scanrelay.log"]
CMD ["server"]
