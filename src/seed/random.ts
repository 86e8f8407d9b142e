/** mulberry32: small, fast and good enough for demo data; the same seed always gives the same sequence. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  float(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<Item>(items: readonly Item[]): Item {
    if (items.length === 0) throw new RangeError('Cannot pick from an empty list.');
    return items[Math.floor(this.next() * items.length)]!;
  }

  pickFrom<Item>(items: readonly Item[]): Item | null {
    return items.length === 0 ? null : this.pick(items);
  }

  weighted<Item>(choices: ReadonlyArray<readonly [Item, number]>): Item {
    let roll = this.next() * choices.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [item, weight] of choices) {
      roll -= weight;
      if (roll < 0) return item;
    }
    return choices.at(-1)![0];
  }

  /** Up to `count` distinct items, in their original order. */
  sample<Item>(items: readonly Item[], count: number): Item[] {
    const indexes = items.map((_, index) => index);
    for (let index = indexes.length - 1; index > 0; index--) {
      const other = Math.floor(this.next() * (index + 1));
      [indexes[index], indexes[other]] = [indexes[other]!, indexes[index]!];
    }
    return indexes
      .slice(0, count)
      .sort((a, b) => a - b)
      .map((index) => items[index]!);
  }

  hex(length: number): string {
    let text = '';
    while (text.length < length)
      text += Math.floor(this.next() * 0x1_0000_0000)
        .toString(16)
        .padStart(8, '0');
    return text.slice(0, length);
  }
}

/** A well-spread 32-bit seed per ordinal, so what is drawn for one ordinal does not depend on the others. */
export function mixSeed(seed: number, ordinal: number): number {
  let hash = (seed ^ Math.imul(ordinal + 1, 0x9e3779b1)) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}
