// Prisma CLI configuration (the CLI lives in this folder: `npm run prisma -- <command>`
// from the project root, see scripts/prisma.mjs). The service itself never uses the CLI
// at run time: its client is committed (lib/generated/prisma) and it applies
// prisma/migrations with lib/db/migrate.ts (works offline, also on PGlite).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "../prisma/schema.prisma",
  migrations: { path: "../prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/echo" },
});
