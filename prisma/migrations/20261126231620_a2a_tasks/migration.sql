-- A2A tasks in the shared database (issue 27): any instance continues a task another created.
-- Written by lib/a2a/task-store.ts; expired rows are swept by the instances.
-- CreateTable
CREATE TABLE "a2a_tasks" (
    "id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "task" JSONB NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "a2a_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "a2a_tasks_expires_at_idx" ON "a2a_tasks"("expires_at");
