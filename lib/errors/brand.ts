/**
 * `instanceof` that holds across copies of one module in one process.
 *
 * Next bundles server code per runtime: page entries load `chunks/ssr/[turbopack]_runtime`
 * and route entries `chunks/[turbopack]_runtime`, each with its own module cache, and the
 * custom server (lib/server) loads its own copy of what it imports. So one process can
 * hold two `NotSentError` classes, and an error thrown by one copy fails a plain
 * `instanceof` against the other. That happened: a settlement that timed out after a page
 * had been rendered was answered as an unexpected failure ("nothing was charged") while
 * its transfer was still on its way. Every error class the service recognizes is
 * therefore branded with a registered symbol (`Symbol.for`, the same in every copy), and
 * `instanceof` checks the brand. Pages are also kept off the payment modules
 * (tests/unit/page-graph.test.ts), so there is one copy of those per process; the brand
 * is what makes a second copy harmless anywhere else.
 */
type Class = abstract new (...args: never[]) => unknown;

/**
 * Brands `cls` as `name` (unique per class, stable across copies and versions): its
 * instances, and its subclasses' instances, pass `instanceof cls` in every copy of the
 * module. A subclass must be branded itself to be told apart from its parent; an
 * unbranded one falls back to the prototype chain.
 */
export function brand<T extends Class>(cls: T, name: string): T {
  const key = Symbol.for(`echo.error.${name}`);
  Object.defineProperty(cls.prototype, key, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: Class, value: unknown): boolean {
      if (this !== cls) return Function.prototype[Symbol.hasInstance].call(this, value);
      return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[key] === true;
    },
  });
  return cls;
}
