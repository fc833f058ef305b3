/**
 * A small seeded pseudo-random generator (sfc32), so a deployment generated from a seed is the same on every
 * machine and every run. Math.random cannot be seeded.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Any number of integer seeds; they are mixed so that nearby seeds give unrelated streams. */
  constructor(...seeds: number[]) {
    let h = 0x9e3779b9;
    const mix = (value: number) => {
      h = Math.imul(h ^ value, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      return h >>> 0;
    };
    this.a = mix(seeds[0] ?? 0);
    this.b = mix(seeds[1] ?? 1);
    this.c = mix(seeds[2] ?? 2);
    this.d = mix(seeds.length);
    for (const extra of seeds.slice(3)) this.d = mix(extra);
    for (let i = 0; i < 12; i += 1) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** A uniformly chosen element. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /**
   * An element chosen with Zipf-like weights (the first is the most likely), as words and speakers are in real
   * conversation: a few are everywhere and most are rare, which is what makes keyword search selective.
   */
  zipf<T>(items: readonly T[]): T {
    const index = Math.min(items.length - 1, Math.floor((items.length + 1) ** this.next()) - 1);
    const item = items[Math.max(0, index)];
    if (item === undefined) throw new Error('zipf pick from an empty list');
    return item;
  }

  /** Up to `count` distinct elements, in the order drawn. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const chosen: T[] = [];
    while (chosen.length < count && pool.length > 0) {
      const [item] = pool.splice(Math.floor(this.next() * pool.length), 1);
      if (item !== undefined) chosen.push(item);
    }
    return chosen;
  }

  /** A version-4-shaped UUID drawn from this stream (deterministic, unlike crypto.randomUUID). */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => Math.floor(this.next() * 16).toString(16));
    hex[12] = '4';
    hex[16] = ((Math.floor(this.next() * 4) + 8) as number).toString(16);
    const s = hex.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
}
