-- A2A tasks keep their JSON as text (lib/a2a/task-store.ts): a task is only ever read whole
-- by its id, so the database need not parse it into jsonb on every write (the largest share
-- of an A2A message's database work on the embedded PGlite). Existing rows keep their
-- JSON (jsonb's text form is JSON).
-- AlterTable
ALTER TABLE "a2a_tasks" ALTER COLUMN "task" SET DATA TYPE TEXT;
