/** Reads a response body up to a byte limit, enforced while streaming; the rest is never buffered. */
import type { Readable } from 'node:stream';

export interface BoundedBody {
  body: Buffer;
  /** True when the body was longer than the limit (reading stopped at the limit). */
  truncated: boolean;
}

export async function readBounded(stream: Readable, limit: number): Promise<BoundedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    if (size + buf.length > limit) {
      chunks.push(buf.subarray(0, limit - size));
      stream.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buf);
    size += buf.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}
