# Production image: service mode only (DATABASE_URL, CLICKHOUSE_URL and REDIS_URL must be set).
# The embedded engines (chdb, embedded-postgres) are optional dependencies and are left out.
# tsx is a runtime dependency: the service runs its TypeScript directly, with no build step.
FROM node:22-bookworm-slim

ENV NODE_ENV=production
WORKDIR /app

# With --omit=optional, esbuild (used by tsx) loses its optional platform package. esbuild's
# install script then fetches the binary from the npm registry, so this step needs the network.
# postinstall repairs postgres.js in node_modules (scripts/patch-postgres.mjs says why).
COPY package.json package-lock.json ./
COPY scripts/patch-postgres.mjs ./scripts/
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund \
  && npm cache clean --force

COPY bin ./bin
COPY src ./src
COPY jobs ./jobs
COPY sql ./sql
COPY clickhouse ./clickhouse

# The app files stay owned by root (read-only for the service); nothing is written under /app.
USER node
EXPOSE 3000
CMD ["node", "--import", "tsx", "src/main.ts"]
