/**
 * Service-generated secrets stored in the database (service_secrets): generated on
 * first use, "first writer wins" under concurrency, then read by every instance.
 */
import { db } from "@/lib/db/client";

const memo = new Map<string, Promise<string>>();

export function serviceSecret(name: string, generate: () => string): Promise<string> {
  let p = memo.get(name);
  if (!p) {
    p = (async () => {
      const prisma = await db();
      await prisma.serviceSecret.createMany({ data: [{ name, value: generate() }], skipDuplicates: true });
      return (await prisma.serviceSecret.findUniqueOrThrow({ where: { name } })).value;
    })();
    p.catch(() => memo.delete(name));
    memo.set(name, p);
  }
  return p;
}
