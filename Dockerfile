# Multi-stage image of the service: the build stage runs the same steps the smoke test
# runs here (npm ci, scripts/standalone.mjs = next build + static assets copied into
# .next/standalone), the runtime stage holds only the standalone server and its traced
# node_modules. Configure with DATABASE_URL and REDIS_URL (see README "Deploying").
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
# The Prisma client is committed (lib/generated/prisma): the install runs no generator.
RUN npm ci --no-audit --no-fund
COPY . .
RUN node scripts/standalone.mjs

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOSTNAME=0.0.0.0
COPY --from=build --chown=node:node /app/.next/standalone ./
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD node -e "fetch('http://127.0.0.1:3000/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "server.js"]
