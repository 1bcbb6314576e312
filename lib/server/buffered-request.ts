/**
 * A Request whose body the fast lane (lib/server/fast-lane.ts) already read off the socket
 * (a small body of declared length: a JSON-RPC message to /mcp or /a2a), served from
 * those bytes.
 *
 * Handed to fetch's Request as its body, the bytes cost every call a copy, a byte
 * ReadableStream with its controller, and on `text()` a reader pulling the one chunk
 * back out through promises: in a profile of MCP tools/call under load, more of the
 * call's own time than parsing and answering the JSON-RPC message. Here `text()` and
 * `json()` decode the bytes directly (as fetch does: UTF-8, a leading BOM dropped), and
 * every other way of reading the body (the `body` stream, `arrayBuffer()`, `formData()`,
 * `clone()`...) gets a plain Request made from the same bytes at that moment, so it
 * reads exactly what fetch would. A body is read once, as fetch's is: a second read is
 * refused with fetch's TypeError.
 *
 * Without bytes (no body, or one that streams) it is a plain Request.
 */

const decoder = new TextDecoder();

/** The bytes as fetch's `text()` decodes them (utf8DecodeBytes: a leading BOM dropped). */
function decodeUtf8(bytes: Uint8Array): string {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decoder.decode(bytes.subarray(3));
  return decoder.decode(bytes);
}

const unusable = () => Promise.reject(new TypeError("Body is unusable: Body has already been read"));

export class BufferedBodyRequest extends Request {
  /** The body read up front; undefined for a plain Request. */
  readonly #bytes: Uint8Array | undefined;
  /** Whether text() or json() consumed #bytes. */
  #consumed = false;
  /** The plain Request carrying #bytes, once a reader other than text()/json() asked for it. */
  #plain: Request | undefined;

  /** `init` without a body when `bytes` is given (the bytes are the body). */
  constructor(url: string, init: RequestInit, bytes?: Uint8Array) {
    super(url, init);
    this.#bytes = bytes;
  }

  /** The same request as a plain Request carrying the bytes (made once, on demand). */
  #asPlain(): Request {
    return (this.#plain ??= new Request(this.url, { method: this.method, headers: this.headers, body: this.#bytes as BodyInit }));
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (!this.#bytes) return super.body;
    // Consumed by text()/json(): fetch's stream would be there, disturbed; an empty one read to its end is the nearest.
    if (this.#consumed) return this.#consumedStream();
    return this.#asPlain().body;
  }

  #consumedStream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({ start: (c) => c.close() });
    void stream.getReader().read();
    return stream;
  }

  override get bodyUsed(): boolean {
    if (!this.#bytes) return super.bodyUsed;
    return this.#consumed || (this.#plain?.bodyUsed ?? false);
  }

  override text(): Promise<string> {
    if (!this.#bytes) return super.text();
    if (this.#plain) return this.#plain.text();
    if (this.#consumed) return unusable();
    this.#consumed = true;
    return Promise.resolve(decodeUtf8(this.#bytes));
  }

  override json(): Promise<unknown> {
    if (!this.#bytes) return super.json();
    if (this.#plain) return this.#plain.json();
    return this.text().then((t) => JSON.parse(t) as unknown);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#bytes ? this.#other((r) => r.arrayBuffer()) : super.arrayBuffer();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#bytes ? this.#other((r) => r.bytes()) : super.bytes();
  }

  override blob(): Promise<Blob> {
    return this.#bytes ? this.#other((r) => r.blob()) : super.blob();
  }

  override formData(): Promise<FormData> {
    return this.#bytes ? this.#other((r) => r.formData()) : super.formData();
  }

  #other<T>(read: (r: Request) => Promise<T>): Promise<T> {
    return this.#consumed ? unusable() : read(this.#asPlain());
  }

  override clone(): Request {
    if (!this.#bytes) return super.clone();
    if (this.#consumed) throw new TypeError("Request.clone: Body has already been consumed.");
    return this.#asPlain().clone();
  }
}
