import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const MAC_BYTES = 16;

/** What a cursor is bound to: the operation, the tenant, the deployment and every filter but the page size. */
export interface CursorBinding {
  operation: string;
  tenantId: string;
  filters: Record<string, unknown>;
}

function bindingHash(binding: CursorBinding): string {
  const filters = Object.keys(binding.filters)
    .filter((key) => key !== 'cursor' && key !== 'limit' && binding.filters[key] !== undefined)
    .sort()
    .map((key) => [key, binding.filters[key]]);
  return createHash('sha256')
    .update(JSON.stringify([binding.operation, binding.tenantId, filters]))
    .digest('base64url')
    .slice(0, 22);
}

/**
 * Opaque page cursors: the position, plus a hash of the query that produced it, signed with the core's secret.
 * A cursor that was tampered with, or that is sent with other filters, fails `open` and is refused.
 */
export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  /** A fresh random secret for a core that has none yet. */
  static newSecret(): string {
    return randomBytes(32).toString('base64url');
  }

  seal<P>(binding: CursorBinding, position: P): string {
    const payload = Buffer.from(JSON.stringify({ b: bindingHash(binding), p: position })).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  /** The position inside a cursor, or null when the cursor is not one this core issued for this query. */
  open<P>(binding: CursorBinding, cursor: string): P | null {
    const [payload, mac, extra] = cursor.split('.');
    if (!payload || !mac || extra !== undefined) return null;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { b?: string; p?: P };
      return decoded.b === bindingHash(binding) && decoded.p !== undefined ? decoded.p : null;
    } catch {
      return null;
    }
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, MAC_BYTES).toString('base64url');
  }
}
