// Prisma CLI configuration. The service itself never uses the CLI at run time:
// it applies prisma/migrations with lib/db/migrate.ts (works offline, also on PGlite).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/echo" },
});
