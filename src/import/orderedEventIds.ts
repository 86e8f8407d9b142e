import { randomInt } from 'node:crypto';
import type { EventStore } from '../eventStore/eventStore.js';
import { rewritingAppendedEvents } from '../metrics/forwardingStores.js';

const SEQUENCE_LIMIT = 2 ** 52;
const SEQUENCE_START_LIMIT = 2 ** 40;

/**
 * UUIDv7 event ids (RFC 9562) that increase strictly within the process: 48 bits of Unix milliseconds, then
 * 22 random bits fixed per process and a 52-bit sequence that starts at a random value each millisecond and
 * counts up within it (RFC 9562, 6.2, method 2).
 *
 * Why the import names its events' ids: the embedded store indexes event ids, and random ones (what it
 * generates) land on a random page of that index each, so an append of a few events writes as many index
 * pages to the log file. Ids that increase land on its last page: measured on 20,000 projects appended one
 * stream at a time, 4.4 to 9.6 s with these against 20 to 36 s with random ids.
 */
export function orderedEventIds(): () => string {
  const prefix = randomInt(2 ** 22);
  // After the time: the version (7) and the prefix's first 12 bits; then the variant (binary 10) and its last 10.
  const versionAndPrefix = `7${hex(prefix >>> 10, 3)}`;
  const variantAndPrefix = hex(0x800 | (prefix & 0x3ff), 3);
  let lastMs = 0;
  let sequence = 0;
  // Up to the sequence's first digit, formatted once per millisecond rather than once per event.
  let head = '';
  const startMillisecond = (ms: number) => {
    lastMs = ms;
    const time = hex(ms, 12);
    head = `${time.slice(0, 8)}-${time.slice(8)}-${versionAndPrefix}-${variantAndPrefix}`;
  };
  return () => {
    const now = Date.now();
    if (now > lastMs) {
      startMillisecond(now);
      sequence = randomInt(SEQUENCE_START_LIMIT);
    } else if (++sequence >= SEQUENCE_LIMIT) {
      startMillisecond(lastMs + 1);
      sequence = 0;
    }
    const digits = hex(sequence, 13);
    return `${head}${digits[0]}-${digits.slice(1)}`;
  };
}

const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');

/** The event store as the import appends through it: every event without an id gets an ordered one. */
export function withOrderedEventIds(eventStore: EventStore): EventStore {
  const nextId = orderedEventIds();
  return rewritingAppendedEvents(eventStore, (event) => (event.id === undefined ? { ...event, id: nextId() } : event));
}
