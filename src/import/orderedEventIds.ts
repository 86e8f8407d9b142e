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
  // The sequence as its first 9 hex digits and its last 4, so that each id formats a small number only.
  let high = 0;
  let low = 0;
  // Up to the sequence's last 4 digits, formatted when `high` changes rather than once per event.
  let head = '';
  const startHigh = () => {
    const digits = hex(high, 9);
    const time = hex(lastMs, 12);
    head = `${time.slice(0, 8)}-${time.slice(8)}-${versionAndPrefix}-${variantAndPrefix}${digits[0]}-${digits.slice(1)}`;
  };
  const startMillisecond = (ms: number, sequence: number) => {
    lastMs = ms;
    high = Math.floor(sequence / LOW_LIMIT);
    low = sequence % LOW_LIMIT;
    startHigh();
  };
  return () => {
    const now = Date.now();
    if (now > lastMs) startMillisecond(now, randomInt(SEQUENCE_START_LIMIT));
    else if (++low === LOW_LIMIT) {
      low = 0;
      if (++high === HIGH_LIMIT) startMillisecond(lastMs + 1, 0);
      else startHigh();
    }
    return head + BYTE_HEX[low >>> 8]! + BYTE_HEX[low & 0xff]!;
  };
}

const LOW_LIMIT = 2 ** 16;
const HIGH_LIMIT = SEQUENCE_LIMIT / LOW_LIMIT;
const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => hex(byte, 2));

/** The event store as the import appends through it: every event without an id gets an ordered one. */
export function withOrderedEventIds(eventStore: EventStore): EventStore {
  const nextId = orderedEventIds();
  // Built field by field: an object spread per event was a visible part of the import's profile.
  return rewritingAppendedEvents(eventStore, (event) => {
    if (event.id !== undefined) return event;
    const { type, data, metadata } = event;
    return metadata === undefined ? { type, data, id: nextId() } : { type, data, metadata, id: nextId() };
  });
}
