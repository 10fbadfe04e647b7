# The scanrelay image: built from source, runs as a non-root user, keeps config, queue and log under /config.
# Node 24 LTS. better-sqlite3 13 ships prebuilt Node-API binaries and has no install script, so no compiler is
# needed: install scripts are skipped, which leaves the optional better-sqlite3-node20 (only for Node 20, see
# src/sqlite.ts) unbuilt, and the prune removes it. esbuild (the build's bundler) finds its binary in its
# optional platform package, so optional packages are installed for the build.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts/bundle.mjs ./scripts/
COPY src ./src
RUN npm ci --ignore-scripts && npm run build && npm prune --omit=dev --omit=optional

FROM node:24-bookworm-slim
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
# The Node flags are src/cli/node-flags.ts NODE_FLAGS (less memory under load; npm start and the unit pass them too).
ENTRYPOINT ["node", "--max-semi-space-size=8", "--max-old-space-size=512", "--no-concurrent-recompilation", "--no-turbofan", "--no-maglev", "dist/scanrelay.mjs", "--config", "/config/config.json", "--queuefile", "/config/queue.db", "--logfile", "/config/scanrelay.log"]
CMD ["server"]
