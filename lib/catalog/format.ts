/**
 * How counts read in descriptions and on the pages ("10,000", "1 call", "50 calls"):
 * one formatter so the catalog, the pages and the documents never disagree on a figure.
 */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** "1 call", "1,000 calls". */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
