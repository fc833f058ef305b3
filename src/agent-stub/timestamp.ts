/** `YYYY-MM-DDThh:mm:ssZ` (UTC, no fractions), the contract's timestamp form. */
export function toTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
