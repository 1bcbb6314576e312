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
 * it is copied into a buffer that reserves four times its size in address space (at
 * least 64 MB, at most MAX_IN_PLACE_BYTES: PostgreSQL splits a relation into 1 GiB
 * segment files, a WAL segment is 16 MB), and grows in place within it, by at least 1 MB
 * or 12.5% at a time (no more spare room than before); past the reservation it is copied
 * once more, at each fourfold growth instead of each 12.5%. Truncation and preallocation
 * stay in place too, unless a file is cut to half its room or less (then MEMFS copies what
 * is left and the memory is given back). Only pages written use memory; the reservation
 * is address space, and Node counts a grown buffer's memory in RSS, not in
 * `process.memoryUsage().external`. Where no address space can be reserved (a
 * virtual-memory limit), MEMFS's own copying growth is used. Smaller files keep MEMFS's
 * own policy (there are hundreds, and doubling them is cheap).
 *
 * This reaches into PGlite's Emscripten module (FS → MEMFS.expandFileStorage), which is
 * not PGlite's public API: if a later version lays it out differently, nothing is
 * replaced, a warning is logged and the database works as before (tests/unit/pglite-settings.test.ts
 * fails, so the upgrade is noticed).
 */
import { log } from "@/lib/log";

/** Files from this size on grow in place (MEMFS doubles smaller ones). */
export const GROW_IN_PLACE_FROM = 1024 * 1024;
/** The largest address range reserved for a file grown in place: a relation segment (1 GiB) and some. Larger files grow by copying. */
export const MAX_IN_PLACE_BYTES = 1024 * 1024 * 1024 + 64 * 1024 * 1024;
const MIN_STEP = 1024 * 1024;
/** The smallest address range reserved for a file grown in place. */
const MIN_RESERVE = 64 * 1024 * 1024;

interface MemfsNode {
  contents: Uint8Array | null;
  usedBytes: number;
}

interface Memfs {
  expandFileStorage(node: MemfsNode, newCapacity: number): void;
  resizeFileStorage(node: MemfsNode, newSize: number): void;
  /** Set by installInPlaceGrowth: the policy is already in place. */
  __growsInPlace?: true;
}

interface EmscriptenFs {
  lookupPath(path: string): { node: { mount: { type: unknown } } };
}

/** ArrayBuffer's ES2024 constructor (a resizable buffer), which this TypeScript lib does not declare yet. */
const ResizableBuffer = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ArrayBuffer;

/** An ArrayBuffer that grows in place (ES2024 resizable; typed here for older TypeScript libs). */
type Resizable = ArrayBuffer & { resizable: true; maxByteLength: number; resize(n: number): void };

function resizable(buf: ArrayBufferLike): buf is Resizable {
  return (buf as { resizable?: boolean }).resizable === true;
}

/** The MEMFS object of the file system holding `dataPath`, if it is laid out as expected. */
function memfsOf(fs: unknown, dataPath: string): Memfs | undefined {
  try {
    const type = (fs as EmscriptenFs).lookupPath(dataPath).node.mount.type as Partial<Memfs> | undefined;
    return type && typeof type.expandFileStorage === "function" && typeof type.resizeFileStorage === "function" ? (type as Memfs) : undefined;
  } catch {
    return undefined;
  }
}

/** `contents` when it is a view that tracks a resizable buffer's length from its start (what this module makes): it can grow in place. */
function inPlace(contents: Uint8Array | null): (Uint8Array & { buffer: Resizable }) | null {
  if (!contents || !resizable(contents.buffer) || contents.byteOffset !== 0) return null;
  // A fixed-length view over such a buffer keeps its length when the buffer grows.
  return contents.length === contents.buffer.byteLength ? (contents as Uint8Array & { buffer: Resizable }) : null;
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
  const resizing = memfs.resizeFileStorage.bind(memfs);
  const expand = (node: MemfsNode, wanted: number) => {
    const contents = node.contents;
    const capacity = contents ? contents.length : 0;
    if (capacity >= wanted) return;
    if (wanted < GROW_IN_PLACE_FROM || wanted > MAX_IN_PLACE_BYTES) return copying(node, wanted);
    const next = Math.min(MAX_IN_PLACE_BYTES, Math.max(wanted, capacity + Math.max(MIN_STEP, Math.floor(capacity / 8))));
    try {
      const own = inPlace(contents);
      if (own && own.buffer.maxByteLength >= next) {
        own.buffer.resize(next); // the view tracks the buffer: `contents` now covers `next` bytes, the old ones in place
        return;
      }
      // Into a resizable buffer, copied this once while the reservation lasts (new bytes are
      // zero, as MEMFS's are). The address range reserved is four times the size (at least
      // 64 MB, at most MAX_IN_PLACE_BYTES), so a file outgrowing it is copied again only at
      // each fourfold growth.
      const reserve = Math.min(MAX_IN_PLACE_BYTES, Math.max(MIN_RESERVE, 4 * next));
      const grown = new Uint8Array(new ResizableBuffer(next, { maxByteLength: reserve }));
      if (contents && node.usedBytes) grown.set(contents.subarray(0, node.usedBytes));
      node.contents = grown;
    } catch {
      // No address range to reserve (a virtual-memory limit): MEMFS's own copying growth.
      copying(node, wanted);
    }
  };
  memfs.expandFileStorage = expand;
  // Truncation (VACUUM cutting a table's empty end) and preallocation (fallocate is a
  // truncate upwards in Emscripten) go through here: in place too, or MEMFS would copy the
  // file into a plain array and the next growth would copy it again.
  memfs.resizeFileStorage = (node: MemfsNode, size: number) => {
    const own = inPlace(node.contents);
    if (size === node.usedBytes) return;
    // A file cut to half its room or less gives the memory back (MEMFS copies what is left).
    if (!own || size > own.buffer.maxByteLength || size <= own.length / 2) return resizing(node, size);
    // Bytes past a file's end are zero (in a new or grown buffer, and cleared when cut), so
    // a file made longer reads zeros there, as MEMFS's would.
    if (size > own.length) expand(node, size);
    else if (size < node.usedBytes) own.fill(0, size, node.usedBytes);
    node.usedBytes = size;
  };
  memfs.__growsInPlace = true;
  return true;
}
