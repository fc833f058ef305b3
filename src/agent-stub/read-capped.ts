/**
 * Reads a body up to `capBytes`. Past the cap it stops and destroys the stream (by leaving the loop) and returns
 * undefined, so an oversized answer never costs more than the cap in memory or time.
 */
export async function readCapped(body: AsyncIterable<Uint8Array>, capBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > capBytes) return undefined;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
