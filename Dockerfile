# Multi-stage image of the service. The build stage runs exactly the steps that
# tests/integration/production-install.test.ts runs on a fresh copy of the repository
# (it reads them from this file): the lockfile's npm, a production install (no dev
# dependency: the generated Prisma client is committed, the build needs only
# dependencies), then scripts/standalone.mjs (next build, the static assets copied into
# .next/standalone, the entry bundled as serve.js). The runtime stage holds only the
# standalone folder: the server and the node_modules files it was traced to use.
# Configure with DATABASE_URL and REDIS_URL (see README "Deploying").
# Base: Node 26, the active LTS line. No dependency needs an older line: every engines
# range in package-lock.json admits 26 (the floor is @stellar/stellar-sdk's >=22.12, see
# package.json "engines"), no dependency compiles a native addon (package.json
# "allowScripts" is empty; the prebuilt ones, Next's SWC among them, are N-API, which
# does not depend on the Node line), and .ci/run runs the whole suite on Node 26.
FROM node:26-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
RUN npm install -g npm@11.19.1
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
RUN node scripts/standalone.mjs

FROM node:26-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOSTNAME=0.0.0.0
COPY --from=build --chown=node:node /app/.next/standalone ./
# Without DATABASE_URL the embedded database lives in ./data (DATA_DIR): writable by the
# user the server runs as. Mount a volume there to keep it across containers.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD node -e "fetch('http://127.0.0.1:3000/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# serve.js: Next's standalone server.js with the service's JSON answers to requests
# Node's parser refuses (lib/server/standalone.ts, bundled by scripts/standalone.mjs).
CMD ["node", "serve.js"]
