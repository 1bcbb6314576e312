/**
 * How the in-memory database's files grow (DATA_DIR=memory). PGlite keeps each file of
 * PostgreSQL's data folder in Emscripten's MEMFS, one Uint8Array per file. A write past
 * the array's end allocates a new array 12.5% larger (doubling below 1 MB) and copies the
 * whole file into it, so every byte of a growing table is copied about eight times, and
 * the copy of a 30 MB file stops the process. Measured under A2A load (32 connections, one
 * task row per message): the tasks table's file grew 35 times in 10 s, copying 220 MB in
 * 685 ms, 11.8% of the process's CPU and its slowest stalls.
 *
 * Here a file that grows past GROW_IN_PLACE_FROM gets a resizable ArrayBuffer instead:
 * it is copied once, into a buffer whose address range is reserved up to
 * MAX_IN_PLACE_BYTES (PostgreSQL splits a relation into 1 GiB segment files, a WAL
 * segment is 16 MB), and from then on it grows in place, never copied, by at least 1 MB
 * or 12.5% at a time (no more spare room than before). Only committed pages use memory;
 * the reservation is address space. Smaller files keep MEMFS's own policy (there are
 * hundreds, and doubling them is cheap).
 *
 * This reaches into PGlite's Emscripten module (FS → MEMFS.expandFileStorage), which is
 * not PGlite's public API: if a later version lays it out differently, nothing is
 * replaced, a warning is logged and the database works as before (tests/unit/pglite-settings.test.ts
 * fails, so the upgrade is noticed).
 */
import { log } from "@/lib/log";

/** Files from this size on grow in place (MEMFS doubles smaller ones). */
export const GROW_IN_PLACE_FROM = 1024 * 1024;
/** The address range reserved per file grown in place: a relation segment (1 GiB) and some. */
export const MAX_IN_PLACE_BYTES = 1024 * 1024 * 1024 + 64 * 1024 * 1024;
const MIN_STEP = 1024 * 1024;

interface MemfsNode {
  contents: Uint8Array | null;
  usedBytes: number;
}

interface Memfs {
  expandFileStorage(node: MemfsNode, newCapacity: number): void;
  /** Set by installInPlaceGrowth: the policy is already in place. */
  __growsInPlace?: true;
}

interface EmscriptenFs {
  lookupPath(path: string): { node: { mount: { type: unknown } } };
}

/** ArrayBuffer's ES2024 constructor (a resizable buffer), which this TypeScript lib does not declare yet. */
const ResizableBuffer = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ArrayBuffer;

function resizable(buf: ArrayBufferLike): buf is ArrayBuffer & { resizable: true; maxByteLength: number; resize(n: number): void } {
  return (buf as { resizable?: boolean }).resizable === true;
}

/** The MEMFS object of the file system holding `dataPath`, if it is laid out as expected. */
function memfsOf(fs: unknown, dataPath: string): Memfs | undefined {
  try {
    const type = (fs as EmscriptenFs).lookupPath(dataPath).node.mount.type as Partial<Memfs> | undefined;
    return type && typeof type.expandFileStorage === "function" ? (type as Memfs) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes the files of the MEMFS holding `dataPath` (in PGlite's module `fs`) grow in place
 * past GROW_IN_PLACE_FROM. Returns whether the policy is in place.
 */
export function installInPlaceGrowth(fs: unknown, dataPath = "/pglite/data"): boolean {
  const memfs = memfsOf(fs, dataPath);
  if (!memfs) {
    log.warn("db.memfs_growth_unavailable", { reason: "PGlite's MEMFS is not where this version expects it; its files grow by copying" });
    return false;
  }
  if (memfs.__growsInPlace) return true;
  const copying = memfs.expandFileStorage.bind(memfs);
  memfs.expandFileStorage = (node: MemfsNode, wanted: number) => {
    const contents = node.contents;
    const capacity = contents ? contents.length : 0;
    if (capacity >= wanted) return;
    if (wanted < GROW_IN_PLACE_FROM || wanted > MAX_IN_PLACE_BYTES) return copying(node, wanted);
    const next = Math.min(MAX_IN_PLACE_BYTES, Math.max(wanted, capacity + Math.max(MIN_STEP, Math.floor(capacity / 8))));
    if (contents && resizable(contents.buffer) && contents.byteOffset === 0 && contents.buffer.maxByteLength >= next) {
      contents.buffer.resize(next); // a length-tracking view: `contents` now covers `next` bytes, the old ones in place
      return;
    }
    // Once per file: into a resizable buffer (new bytes are zero, as MEMFS's are).
    const grown = new Uint8Array(new ResizableBuffer(next, { maxByteLength: MAX_IN_PLACE_BYTES }));
    if (contents && node.usedBytes) grown.set(contents.subarray(0, node.usedBytes));
    node.contents = grown;
  };
  memfs.__growsInPlace = true;
  return true;
}
