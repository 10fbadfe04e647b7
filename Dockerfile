# The scanrelay image: built from source, runs as a non-root user, keeps config, queue and log under /config.
# Node 22 LTS: better-sqlite3 12 aborts on Node 24 (fixed in 13, which no longer runs on Node 20); see the README.
FROM node:22-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 falls back to compiling when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm ci && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# /config holds config.json, queue.db and the log; the built-in "node" user (uid 1000) owns it.
RUN mkdir -p /config && chown node:node /config
USER node
VOLUME ["/config"]
EXPOSE 3468
# /health?ready is 503 until the queue is open and every media server has been asked once (at most 30 s).
HEALTHCHECK --interval=30s --timeout=5s --start-period=45s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.SERVER_PORT||3468)+'/health?ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "dist/cli/index.js", "--config", "/config/config.json", "--queuefile", "/config/queue.db", "--logfile", "/config/scanrelay.log"]
CMD ["server"]
