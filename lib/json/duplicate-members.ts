/**
 * Finds an object member name that appears twice in one JSON object. JSON.parse keeps
 * the last value silently (RFC 8259 §4 leaves the meaning of such a text open), so a
 * request like `{"arguments": {"tickers": "A", "tickers": "B"}}` would run with one
 * value the caller may not have meant; the MCP endpoint refuses it instead, as the
 * HTTP surface refuses `tickers=A&tickers=B`.
 *
 * A single pass over text that JSON.parse has already accepted (so it is well-formed):
 * no second parse, one Set per open object.
 */

export interface DuplicateMember {
  /** Member names and array indexes leading to the object holding the duplicate. */
  path: Array<string | number>;
  name: string;
  /** Every value given for `name` in that object, in order. */
  values: unknown[];
}

interface Frame {
  /** Member names seen so far (objects only). */
  keys?: Map<string, number[]>;
  /** Name (object) or index (array) of the value being read in this container. */
  at: string | number;
  expectKey: boolean;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** End index (exclusive) of the string starting at `i` (a quote). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) j += 2;
    else if (c === 0x22) return j + 1;
    else j++;
  }
}

/** End index (exclusive) of the JSON value starting at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c !== 0x7b && c !== 0x5b) {
    let j = i;
    while (j < text.length && !/[\s,\]}]/.test(text[j]!)) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === 0x22) j = stringEnd(text, j) - 1;
    else if (d === 0x7b || d === 0x5b) depth++;
    else if ((d === 0x7d || d === 0x5d) && --depth === 0) return j + 1;
  }
  return text.length;
}

/** The first member name repeated within one object of `text` (well-formed JSON), or null. */
export function findDuplicateMember(text: string): DuplicateMember | null {
  const stack: Frame[] = [];
  // Once a name repeats, its object is read to its end so every value given is reported.
  let found: { frame: Frame; name: string; path: Array<string | number> } | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || c === 0x3a) continue;
    const top = stack.at(-1);
    if (c === 0x7b || c === 0x5b) {
      stack.push(c === 0x7b ? { keys: new Map(), at: "", expectKey: true } : { at: 0, expectKey: false });
    } else if (c === 0x7d || c === 0x5d) {
      if (found && stack.pop() === found.frame) break;
      if (!found) stack.pop();
    } else if (c === 0x2c) {
      if (top?.keys) top.expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
    } else if (c === 0x22 && top?.keys && top.expectKey) {
      const end = stringEnd(text, i);
      const raw = text.slice(i + 1, end - 1);
      const name = raw.includes("\\") ? (JSON.parse(text.slice(i, end)) as string) : raw;
      let start = end;
      while (text.charCodeAt(start) !== 0x3a) start++;
      i = start;
      start++;
      while (isSpace(text.charCodeAt(start))) start++;
      const seen = top.keys.get(name);
      if (seen) {
        seen.push(start);
        found ??= { frame: top, name, path: stack.slice(0, -1).map((f) => f.at) };
      } else {
        top.keys.set(name, [start]);
      }
      top.at = name;
      top.expectKey = false;
    } else if (c === 0x22) {
      i = stringEnd(text, i) - 1;
    }
    // Numbers, true, false and null need no tracking: their characters match no branch above.
  }
  if (!found) return null;
  const starts = found.frame.keys!.get(found.name)!;
  return { path: found.path, name: found.name, values: starts.map((s) => JSON.parse(text.slice(s, valueEnd(text, s)))) };
}
