/**
 * A file read to at most `max` bytes: a huge file, a device (`/dev/zero`) or a FIFO never fills
 * memory. Callers read `cap + 1` to tell "exactly the cap" from "over it".
 */
import { open } from 'node:fs/promises';

export async function readAtMost(file: string, max: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(max);
    let length = 0;
    while (length < max) {
      const { bytesRead } = await handle.read(buf, length, max - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buf.subarray(0, length);
  } finally {
    await handle.close();
  }
}
