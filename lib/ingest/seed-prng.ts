/**
 * A small, fast, seedable PRNG (sfc32) for the demo-data generator. Math.random
 * cannot be seeded, and the generator must produce the same bytes for the same
 * seed on every machine, so every draw goes through this.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seedText: string) {
    [this.a, this.b, this.c, this.d] = cyrb128(seedText);
    // The first outputs of sfc32 correlate with the seed; discard them.
    for (let i = 0; i < 15; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [min, max], both inclusive. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** Picks with a bias towards the front of the list (Zipf-like), so a few items dominate. */
  pickSkewed<T>(items: readonly T[]): T {
    const r = this.float();
    return items[Math.floor(r * r * items.length)]!;
  }

  /** `digits` lowercase hex digits (multiples of 8 are the cheapest). */
  hex(digits: number): string {
    let out = '';
    while (out.length < digits) out += this.u32().toString(16).padStart(8, '0');
    return out.slice(0, digits);
  }

  /** `length` lowercase ASCII letters. */
  letters(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += String.fromCharCode(97 + this.int(26));
    return out;
  }

  /** Lowercase letters and digits, like Atlas host name fragments. */
  alnum(length: number): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }
}

/** cyrb128: a fast 128-bit string hash, used only to seed the PRNG. */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}
