/**
 * The static import graph of the project's own TypeScript, read with the TypeScript
 * parser (no bundler, no extra dependency), and its cycles.
 *
 * An edge is any module specifier written at the top of a file: `import`, `import type`,
 * `export … from`, `export type … from`, and type positions written as
 * `import("…")` types. Type-only edges count: a type cycle couples the modules just
 * as a runtime one does (neither can be understood or moved without the other).
 * A dynamic `import()` call is not an edge: it runs when called, after every module
 * has loaded, which is the documented way to reach the catalog from a module the
 * catalog imports.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const EXTENSIONS = [".ts", ".tsx", ".d.ts"];

function listSources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name === "node_modules" || name === "generated") continue;
      listSources(full, out);
    } else if (/\.tsx?$/.test(name)) {
      out.push(full);
    }
  }
  return out;
}

/** Resolves `spec` from `file` to a project file, or null for packages. */
function resolve(root: string, file: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(root, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(file), spec);
  else return null;
  const candidates = [base, ...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => path.join(base, `index${e}`))];
  for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return c;
  // Some specifiers name the .js of a .ts source.
  const js = base.replace(/\.m?js$/, "");
  for (const e of EXTENSIONS) if (existsSync(js + e)) return js + e;
  return null;
}

function edgesOf(root: string, file: string): ImportEdge[] {
  const src = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: ImportEdge[] = [];
  const add = (spec: ts.Expression | undefined, typeOnly: boolean) => {
    if (!spec || !ts.isStringLiteral(spec)) return;
    const to = resolve(root, file, spec.text);
    if (to) out.push({ from: file, to, typeOnly });
  };
  for (const st of src.statements) {
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      // `import { type A, type B }` is type-only too; `import {}`/side-effect imports are runtime.
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const allTypes = Boolean(clause && !clause.name && named && named.length > 0 && named.every((e) => e.isTypeOnly));
      add(st.moduleSpecifier, Boolean(clause?.isTypeOnly) || allTypes);
    } else if (ts.isExportDeclaration(st)) {
      const named = st.exportClause && ts.isNamedExports(st.exportClause) ? st.exportClause.elements : undefined;
      add(st.moduleSpecifier, st.isTypeOnly || Boolean(named && named.length > 0 && named.every((e) => e.isTypeOnly)));
    } else if (ts.isImportEqualsDeclaration(st) && ts.isExternalModuleReference(st.moduleReference)) {
      add(st.moduleReference.expression, st.isTypeOnly);
    }
  }
  const visit = (node: ts.Node) => {
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal as ts.Expression, true);
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

/** Every edge between the project's files under `dirs` (paths relative to `root`). */
export function importGraph(root: string, dirs: string[]): ImportEdge[] {
  const files = dirs.flatMap((d) => listSources(path.join(root, d)));
  const inside = new Set(files);
  const rel = (f: string) => path.relative(root, f);
  return files.flatMap((f) => edgesOf(root, f).filter((e) => inside.has(e.to)).map((e) => ({ from: rel(e.from), to: rel(e.to), typeOnly: e.typeOnly })));
}

/**
 * The cycles of a graph: one per strongly connected component with more than one
 * module (or a module importing itself), each given as a closed path through it.
 */
export function importCycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, []);
    if (!next.has(e.to)) next.set(e.to, []);
    next.get(e.from)!.push(e.to);
  }
  // Tarjan's strongly connected components (iterative: no recursion limit on deep graphs).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; i: number }> = [{ node: start, i: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const succ = next.get(top.node)!;
      if (top.i < succ.length) {
        const w = succ[top.i++]!;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
        } while (w !== top.node);
        const selfLoop = next.get(top.node)!.includes(top.node);
        if (comp.length > 1 || selfLoop) components.push(comp);
      }
    }
  }
  return components.map((comp) => cycleThrough(comp, next));
}

/** A closed path through a strongly connected component (breadth-first back to its first module). */
function cycleThrough(comp: string[], next: Map<string, string[]>): string[] {
  const members = new Set(comp);
  const start = [...comp].sort()[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length > 0) {
    const n = queue.shift()!;
    for (const w of next.get(n)!) {
      if (!members.has(w)) continue;
      if (w === start) {
        const back: string[] = [];
        for (let c: string | undefined = n; c !== undefined && c !== start; c = prev.get(c)) back.push(c);
        return [start, ...back.reverse(), start];
      }
      if (!seen.has(w)) {
        seen.add(w);
        prev.set(w, n);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
