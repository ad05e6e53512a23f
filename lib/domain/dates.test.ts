import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DAY_MS,
  FIRST_INSTANT,
  LAST_INSTANT,
  formatShortRelative,
  toApiDateTimeExact,
  formatLongTimestamp,
  formatSpan,
  formatTimestamp,
  formatZoneOffset,
  isKnownZone,
  parseApiDateTime,
  parseDateTime,
  parseEndBound,
  skippedWallTime,
  toApiDateTime,
  toDateTimeInputValue,
  toUrlDateTime,
  toEndInputValue,
  toUrlEndBound,
} from './dates';
import { formatCreated } from './event';

const INSTANT = Date.UTC(2026, 0, 2, 10, 4, 5); // 2026-01-02T10:04:05Z

describe('lib/domain/dates', () => {
  it('formats one instant in UTC and in a named zone', () => {
    assert.equal(formatTimestamp(INSTANT, 'UTC'), '2026-01-02 10:04:05');
    assert.equal(formatTimestamp(INSTANT, 'Europe/Paris'), '2026-01-02 11:04:05');
    assert.equal(formatTimestamp(INSTANT, 'Asia/Kolkata'), '2026-01-02 15:34:05');
    assert.equal(
      formatLongTimestamp(INSTANT, 'Europe/Paris'),
      'Fri, 2 Jan 2026, 11:04:05 UTC+01:00',
    );
    assert.equal(formatZoneOffset(INSTANT, 'UTC'), 'UTC');
    assert.equal(formatZoneOffset(INSTANT, 'America/New_York'), 'UTC-05:00');
  });

  it('writes the API form in UTC with a Z and reads it back', () => {
    assert.equal(toApiDateTime(INSTANT), '2026-01-02T10:04:05Z');
    assert.equal(parseApiDateTime('2026-01-02T10:04:05Z'), INSTANT);
    assert.equal(parseApiDateTime('not a date'), null);
    // The first century is itself (date-fns's parseJSON read 0099 as 1999).
    assert.equal(parseApiDateTime('0099-01-01T00:00:00Z'), -59042995200000);
    assert.equal(toApiDateTime(-59042995200000), '0099-01-01T00:00:00Z');
  });

  it('reads the served form (Z, optional milliseconds) as the general reader reads the same text with +00:00, and as the Date calendar places it', () => {
    // The served form has a digit-by-digit path; "+00:00" takes the general one.
    const general = (served: string) => parseDateTime(served.replace(/Z$/, '+00:00'));
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    for (let i = 0; i < 5000; i++) {
      // Years 0-9999 (0-99 too, which Date.UTC would move to 19xx), days up
      // to 31 in every month (so February 29-31 and April 31 are in), times
      // up to 24:60:60 (out of range included), milliseconds or not.
      const text = `${pad(Math.floor(random() * 10000), 4)}-${pad(1 + Math.floor(random() * 12), 2)}-${pad(
        1 + Math.floor(random() * 31),
        2,
      )}T${pad(Math.floor(random() * 25), 2)}:${pad(Math.floor(random() * 61), 2)}:${pad(
        Math.floor(random() * 61),
        2,
      )}${i % 2 === 0 ? '' : `.${pad(Math.floor(random() * 1000), 3)}`}Z`;
      assert.equal(parseDateTime(text), general(text), text);
      // And Date's own calendar, which neither reader uses to decide.
      const [y, mo, d, h, mi, sec, ms] = text.split(/[-T:.Z]/).map(Number);
      const date = new Date(0);
      date.setUTCFullYear(y!, mo! - 1, d);
      date.setUTCHours(h!, mi, sec, ms ?? 0);
      const exists =
        date.getUTCFullYear() === y && date.getUTCMonth() === mo! - 1 && date.getUTCDate() === d;
      assert.equal(
        parseDateTime(text),
        exists && h! < 24 && mi! < 60 && sec! < 60 ? date.getTime() : null,
        text,
      );
    }
    assert.equal(parseDateTime('2024-02-29T23:59:59.999Z'), Date.UTC(2024, 1, 29, 23, 59, 59, 999));
    assert.equal(parseDateTime('2025-02-29T00:00:00Z'), null);
    assert.equal(parseDateTime('1900-02-29T00:00:00Z'), null);
    assert.equal(parseDateTime('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29));
    assert.equal(parseDateTime('0000-01-01T00:00:00Z'), -62_167_219_200_000);
    assert.equal(parseDateTime('2026-01-02T10:04:05Z'), INSTANT);
    // Same length, other shapes: left to the general reader.
    assert.equal(parseDateTime('2026-01-02 10:04:05Z'), INSTANT);
    assert.equal(parseDateTime('2026-01-02T10:04:05z'), INSTANT);
    assert.equal(parseDateTime('2026-01-02T10:04:05,000Z'), INSTANT);
    assert.equal(parseDateTime('2026-01-0xT10:04:05Z'), null);
  });

  it('writes URL instants in the chosen zone with their offset', () => {
    assert.equal(toUrlDateTime(INSTANT, 'UTC'), '2026-01-02T10:04:05Z');
    assert.equal(toUrlDateTime(Date.UTC(2026, 0, 2, 10, 4), 'UTC'), '2026-01-02T10:04Z');
    assert.equal(toUrlDateTime(INSTANT, 'Europe/Paris'), '2026-01-02T11:04:05+01:00');
  });

  it('writes a URL instant with a fraction of a second to the millisecond, so it reads back the same', () => {
    const withMillis = INSTANT + 500;
    assert.equal(toUrlDateTime(withMillis, 'UTC'), '2026-01-02T10:04:05.500Z');
    assert.equal(toUrlDateTime(withMillis, 'Asia/Kolkata'), '2026-01-02T15:34:05.500+05:30');
    assert.equal(parseDateTime(toUrlDateTime(withMillis, 'Asia/Kolkata'), 'UTC'), withMillis);
    // On a whole second or minute, as before.
    assert.equal(
      toUrlDateTime(Date.UTC(2026, 0, 2, 10, 4, 0, 1), 'UTC'),
      '2026-01-02T10:04:00.001Z',
    );
  });

  it('reads date-times with an offset as instants and without one as wall-clock in the zone', () => {
    assert.equal(parseDateTime('2026-01-02T11:04:05+01:00', 'Asia/Tokyo'), INSTANT);
    assert.equal(parseDateTime('2026-01-02T11:04:05+0100', 'UTC'), INSTANT);
    assert.equal(parseDateTime('2026-01-02T10:04:05Z', 'Europe/Paris'), INSTANT);
    assert.equal(parseDateTime('2026-01-02T11:04:05', 'Europe/Paris'), INSTANT);
    assert.equal(parseDateTime('2026-01-02 10:04:05', 'UTC'), INSTANT);
    assert.equal(parseDateTime('2026-01-02', 'UTC'), Date.UTC(2026, 0, 2));
  });

  it('refuses impossible dates instead of rolling them over', () => {
    assert.equal(parseDateTime('2026-02-30', 'UTC'), null);
    assert.equal(parseDateTime('2026-13-01', 'UTC'), null);
    assert.equal(parseDateTime('2026-01-01T24:00', 'UTC'), null);
    assert.equal(parseDateTime('yesterday', 'UTC'), null);
  });

  it('refuses an instant outside the years 0000-9999 once its offset applies, which the served form cannot write', () => {
    assert.equal(parseDateTime('9999-12-31T23:59:59-01:00'), null);
    assert.equal(parseDateTime('0000-01-01T00:00:00+01:00'), null);
    assert.equal(parseDateTime('9999-12-31T22:59:59.999-01:00'), 253_402_300_799_999);
    for (const text of ['9999-12-31T23:59:59.999Z', '0000-01-01T00:00:00Z', '0000-01-01']) {
      const instant = parseDateTime(text);
      assert.notEqual(instant, null, text);
      // Written back in the served form, and read as the same instant.
      assert.equal(parseDateTime(formatCreated(instant!)), instant, text);
    }
  });

  it('reads the years 0-99 as written in a zone too, not as 1900-1999', () => {
    assert.equal(
      parseDateTime('0050-06-01T10:00', 'Etc/GMT-2'),
      parseDateTime('0050-06-01T10:00+02:00'),
    );
    assert.equal(parseDateTime('0099-12-31', 'Etc/GMT-2'), parseDateTime('0099-12-31T00:00+02:00'));
  });

  it('writes the years 0000-0099 as themselves, not as the year of an era (0000 is not 0001)', () => {
    assert.equal(formatTimestamp(FIRST_INSTANT, 'UTC'), '0000-01-01 00:00:00');
    assert.equal(formatLongTimestamp(FIRST_INSTANT, 'UTC'), 'Sat, 1 Jan 0000, 00:00:00 UTC');
    assert.equal(toUrlDateTime(FIRST_INSTANT, 'UTC'), '0000-01-01T00:00Z');
    assert.equal(parseDateTime(toUrlDateTime(FIRST_INSTANT, 'UTC'), 'UTC'), FIRST_INSTANT);
    // New York kept its local mean time (UTC-04:56:02) until 1883.
    const noonInNewYork = new Date(0).setUTCFullYear(0, 5, 1) + (16 * 3600 + 56 * 60 + 2) * 1000;
    assert.equal(formatTimestamp(noonInNewYork, 'America/New_York'), '0000-06-01 12:00:00');
    assert.equal(
      formatLongTimestamp(noonInNewYork, 'America/New_York'),
      'Thu, 1 Jun 0000, 12:00:00 UTC-04:56',
    );
  });

  it('round-trips the years 0000, 0050, 0099, 0100 and 9999 through the table, input and URL forms', () => {
    for (const year of ['0000', '0050', '0099', '0100', '9999']) {
      for (const zone of ['UTC', 'America/New_York', 'Etc/GMT+5']) {
        for (const wall of [`${year}-01-01 00:00:00`, `${year}-06-15 13:45:30`]) {
          const instant = parseDateTime(wall, zone);
          assert.notEqual(instant, null, `${wall} ${zone}`);
          assert.equal(formatTimestamp(instant!, zone), wall, `${wall} ${zone}`);
          assert.equal(toDateTimeInputValue(instant!, zone), wall, `${wall} ${zone}`);
          assert.ok(formatLongTimestamp(instant!, zone).includes(` ${year}, `), `${wall} ${zone}`);
          const url = toUrlDateTime(instant!, zone);
          assert.ok(url.startsWith(wall.slice(0, 10)), `${url} ${zone}`);
          // New York's local mean time (UTC-04:56:02, until 1883) has seconds
          // a URL's offset cannot write; Etc/GMT+5 is UTC-05:00 all along.
          if (zone !== 'America/New_York' || year === '9999') {
            assert.equal(parseDateTime(url, zone), instant, `${url} ${zone}`);
          }
        }
      }
    }
  });

  it('ends a bare "to" date of the years 0000-0099 on that day, not 1900-1999, and 9999-12-31 at its last millisecond', () => {
    const endOfDay = (year: number, month: number, day: number) => {
      const date = new Date(0);
      date.setUTCFullYear(year, month - 1, day);
      return date.getTime() + DAY_MS - 1;
    };
    assert.equal(parseEndBound('0000-01-01', 'UTC'), endOfDay(0, 1, 1));
    assert.equal(parseEndBound('0050-06-01', 'UTC'), endOfDay(50, 6, 1));
    assert.equal(parseEndBound('0099-12-31', 'UTC'), endOfDay(99, 12, 31));
    assert.equal(parseEndBound('0100-03-01', 'UTC'), endOfDay(100, 3, 1));
    assert.equal(parseEndBound('9999-12-31', 'UTC'), LAST_INSTANT);
    assert.equal(toUrlEndBound(parseEndBound('0050-06-01', 'UTC')!, 'UTC'), '0050-06-01T23:59Z');
    assert.equal(
      toUrlEndBound(parseEndBound('0050-06-01', 'Etc/GMT+5')!, 'Etc/GMT+5'),
      '0050-06-01T23:59-05:00',
    );
    for (const day of ['0000-01-01', '0050-06-01', '0099-12-31', '0100-03-01']) {
      // In a zone too: the millisecond before the next day starts there.
      const end = parseEndBound(day, 'America/New_York');
      assert.notEqual(end, null, day);
      assert.equal(formatTimestamp(end!, 'America/New_York').slice(0, 10), day, day);
    }
    // East of UTC the last day ends within the served range; west of it, past
    // it, so at the last instant the served form can write.
    assert.equal(
      parseEndBound('9999-12-31', 'Asia/Tokyo'),
      Date.UTC(9999, 11, 31, 14, 59, 59, 999),
    );
    assert.equal(parseEndBound('9999-12-31', 'America/New_York'), LAST_INSTANT);
  });

  it('fills date inputs in the table format and zone, and round-trips them', () => {
    const value = toDateTimeInputValue(INSTANT, 'Asia/Tokyo');
    assert.equal(value, '2026-01-02 19:04:05');
    assert.equal(parseDateTime(value, 'Asia/Tokyo'), INSTANT);
    // A fraction of a second is kept: Apply as shown keeps the bound.
    const withMillis = toDateTimeInputValue(INSTANT + 250, 'Asia/Tokyo');
    assert.equal(withMillis, '2026-01-02 19:04:05.250');
    assert.equal(parseDateTime(withMillis, 'Asia/Tokyo'), INSTANT + 250);
  });

  it('makes a "to" bound end with the whole minute, second or day it names, and writes it back as named', () => {
    const minute = Date.UTC(2026, 0, 31, 11, 30);
    for (const [text, end, url, input] of [
      ['2026-01-31 11:30', minute + 59_999, '2026-01-31T11:30Z', '2026-01-31 11:30'],
      // A second ending in :00 falls on a whole minute: it is still one second.
      ['2026-01-31 11:30:00', minute + 999, '2026-01-31T11:30:00Z', '2026-01-31 11:30:00'],
      ['2026-01-31T11:30:05Z', minute + 5999, '2026-01-31T11:30:05Z', '2026-01-31 11:30:05'],
      [
        '2026-01-31 11:30:00.250',
        minute + 250,
        '2026-01-31T11:30:00.250Z',
        '2026-01-31 11:30:00.250',
      ],
      ['2026-01-31', Date.UTC(2026, 1, 1) - 1, '2026-01-31T23:59Z', '2026-01-31 23:59'],
    ] as const) {
      assert.equal(parseEndBound(text, 'UTC'), end, text);
      assert.equal(toUrlEndBound(end, 'UTC'), url, text);
      assert.equal(toEndInputValue(end, 'UTC'), input, text);
      assert.equal(parseEndBound(url, 'UTC'), end, url);
      assert.equal(parseEndBound(input, 'UTC'), end, input);
    }
    assert.equal(toApiDateTimeExact(minute + 59_999), '2026-01-31T11:30:59.999Z');
    assert.equal(toApiDateTimeExact(minute), '2026-01-31T11:30:00Z');
  });

  it('writes a "to" minute or second in the hour the clocks pass twice with its offset, and in a local mean time as named', () => {
    const zone = 'America/New_York';
    for (const text of [
      '2025-11-02 01:30-05:00',
      '2025-11-02 01:30-04:00',
      '2025-11-02 01:30:00-05:00',
    ]) {
      const end = parseEndBound(text, zone)!;
      assert.equal(toEndInputValue(end, zone), text);
      assert.equal(parseEndBound(toUrlEndBound(end, zone), zone), end, text);
    }
    // New York's local mean time (UTC-04:56:02, until 1883): its minutes are 2 s off UTC's.
    const end = parseEndBound('1880-06-01 10:00', zone)!;
    assert.equal(toEndInputValue(end, zone), '1880-06-01 10:00');
  });

  it('says relative times briefly', () => {
    const now = Date.UTC(2026, 1, 1, 2);
    assert.equal(formatShortRelative(now - 3 * 3_600_000 - 5_000, now), '3 h ago');
    assert.equal(formatShortRelative(now - 2_000, now), 'just now');
    assert.equal(formatShortRelative(now - 90_000, now), '1 min ago');
    assert.equal(formatShortRelative(now + 2 * 86_400_000, now), 'in 2 d');
  });

  it('knows real zone names only', () => {
    assert.equal(isKnownZone('Europe/Paris'), true);
    assert.equal(isKnownZone('Mars/Olympus'), false);
    assert.equal(isKnownZone(''), false);
  });

  it('reads instants without a zone the way the API, the CLI and imports need', () => {
    assert.equal(parseDateTime('2026-01-31'), Date.UTC(2026, 0, 31), 'a bare date is midnight UTC');
    assert.equal(parseDateTime('2026-01-31T12:00:00+0200'), Date.UTC(2026, 0, 31, 10));
    assert.equal(parseDateTime('2026-01-31t12:00z'), Date.UTC(2026, 0, 31, 12));
    assert.equal(
      parseDateTime('2026-01-31T12:00:00'),
      null,
      'a time without an offset is ambiguous',
    );
    assert.equal(parseDateTime('2026-01-31Z'), null);
  });

  it('refuses dates that do not exist with or without a zone', () => {
    for (const text of [
      '2026-02-30T00:00:00Z',
      '2026-02-29',
      '2026-01-31T24:00:00Z',
      '2026-04-31',
    ]) {
      assert.equal(parseDateTime(text), null, text);
      assert.equal(parseDateTime(text, 'Europe/Paris'), null, text);
    }
    assert.equal(parseDateTime('2024-02-29'), Date.UTC(2024, 1, 29));
  });

  it('reads a wall time the clocks pass twice as its first pass, and one they skip as moved on by the gap, whatever zone the process runs in', () => {
    const cases = [
      // Clocks go back: 01:30 happens at UTC-04:00, then at UTC-05:00.
      ['2025-11-02 01:30', 'America/New_York', '2025-11-02T05:30:00Z'],
      // East of UTC too, where the first pass was read as the second one.
      ['2025-10-26 01:30', 'Europe/London', '2025-10-26T00:30:00Z'],
      // Lord Howe goes back half an hour: 01:45 at UTC+11:00, then at UTC+10:30.
      ['2025-04-06 01:45', 'Australia/Lord_Howe', '2025-04-05T14:45:00Z'],
      // Clocks go forward: 02:30 is read at the offset before, so 03:30 after.
      ['2025-03-09 02:30', 'America/New_York', '2025-03-09T07:30:00Z'],
      ['2025-03-30 01:30', 'Europe/London', '2025-03-30T01:30:00Z'],
      ['2025-10-05 02:15', 'Australia/Lord_Howe', '2025-10-04T15:45:00Z'],
      // Either side of each change, one reading.
      ['2025-11-02 00:59:59', 'America/New_York', '2025-11-02T04:59:59Z'],
      ['2025-11-02 02:00', 'America/New_York', '2025-11-02T07:00:00Z'],
      ['2025-10-26 02:00', 'Europe/London', '2025-10-26T02:00:00Z'],
    ] as const;
    const runtimeZone = process.env.TZ;
    try {
      // The dashboard's server and its browsers run in any zone.
      for (const processZone of ['UTC', 'Europe/London', 'America/New_York', 'Asia/Tokyo']) {
        process.env.TZ = processZone;
        for (const [wall, zone, instant] of cases) {
          assert.equal(
            parseDateTime(wall, zone),
            Date.parse(instant),
            `${wall} in ${zone}, process in ${processZone}`,
          );
        }
      }
    } finally {
      if (runtimeZone === undefined) delete process.env.TZ;
      else process.env.TZ = runtimeZone;
    }
  });

  it('shows a time of the hour the clocks pass twice with its offset, and reads the input form back to the same pass', () => {
    const cases = [
      ['2025-11-02T05:30:00Z', 'America/New_York', '2025-11-02 01:30:00', '-04:00'],
      ['2025-11-02T06:30:00Z', 'America/New_York', '2025-11-02 01:30:00', '-05:00'],
      ['2025-10-26T00:30:00Z', 'Europe/London', '2025-10-26 01:30:00', '+01:00'],
      ['2025-10-26T01:30:00Z', 'Europe/London', '2025-10-26 01:30:00', '+00:00'],
      ['2025-04-05T14:45:00Z', 'Australia/Lord_Howe', '2025-04-06 01:45:00', '+11:00'],
      ['2025-04-05T15:15:00Z', 'Australia/Lord_Howe', '2025-04-06 01:45:00', '+10:30'],
    ] as const;
    for (const [iso, zone, wall, offset] of cases) {
      const instant = Date.parse(iso);
      const shown = offset === '+00:00' ? 'UTC' : `UTC${offset}`;
      assert.equal(formatTimestamp(instant, zone), `${wall} ${shown}`, `${iso} ${zone}`);
      assert.equal(toDateTimeInputValue(instant, zone), `${wall}${offset}`, `${iso} ${zone}`);
      assert.equal(parseDateTime(toDateTimeInputValue(instant, zone), zone), instant);
    }
    // Any other hour, the day the clocks go back or forward too, reads as before.
    for (const [iso, zone, wall] of [
      ['2025-11-02T04:59:59Z', 'America/New_York', '2025-11-02 00:59:59'],
      ['2025-11-02T07:00:00Z', 'America/New_York', '2025-11-02 02:00:00'],
      ['2025-03-09T07:30:00Z', 'America/New_York', '2025-03-09 03:30:00'],
      ['2025-10-26T01:30:00Z', 'UTC', '2025-10-26 01:30:00'],
    ] as const) {
      assert.equal(formatTimestamp(Date.parse(iso), zone), wall, `${iso} ${zone}`);
      assert.equal(toDateTimeInputValue(Date.parse(iso), zone), wall, `${iso} ${zone}`);
    }
  });

  it('reads a bare "to" date as its whole calendar day in the zone, on daylight saving days too', () => {
    const cases = [
      // 25 hours long (clocks go back at 02:00): 24 h after midnight would be 23:00.
      [
        '2026-11-01',
        'America/New_York',
        Date.UTC(2026, 10, 2, 4, 59, 59, 999),
        '2026-11-01T23:59-05:00',
      ],
      // 23 hours long (clocks go forward at 02:00): 24 h after midnight would be the next day.
      [
        '2026-03-08',
        'America/New_York',
        Date.UTC(2026, 2, 9, 3, 59, 59, 999),
        '2026-03-08T23:59-04:00',
      ],
      [
        '2026-03-29',
        'Europe/Berlin',
        Date.UTC(2026, 2, 29, 21, 59, 59, 999),
        '2026-03-29T23:59+02:00',
      ],
      [' 2026-01-31 ', 'UTC', Date.UTC(2026, 0, 31, 23, 59, 59, 999), '2026-01-31T23:59Z'],
      // Santiago: clocks go back at midnight (23:59 happens twice: the day ends with the second)...
      [
        '2026-04-04',
        'America/Santiago',
        Date.UTC(2026, 3, 5, 3, 59, 59, 999),
        '2026-04-04T23:59-04:00',
      ],
      // ...and forward at midnight (the next day starts at 01:00).
      [
        '2026-09-05',
        'America/Santiago',
        Date.UTC(2026, 8, 6, 3, 59, 59, 999),
        '2026-09-05T23:59-04:00',
      ],
    ] as const;
    for (const [text, zone, instant, url] of cases) {
      assert.equal(parseEndBound(text, zone), instant, `${text} ${zone}`);
      assert.equal(toUrlEndBound(instant, zone), url);
    }
    // A time covers the minute it names; a day that does not exist is still refused.
    assert.equal(
      parseEndBound('2026-11-01 10:00', 'America/New_York'),
      parseDateTime('2026-11-01 10:00:59.999', 'America/New_York'),
    );
    assert.equal(parseEndBound('2026-02-30', 'America/New_York'), null);
  });

  it('tells a typed time the clocks skip, and the instant it is read as, from every time that exists', () => {
    for (const [text, zone, read] of [
      ['2025-03-09 02:30', 'America/New_York', '2025-03-09T07:30:00Z'],
      ['2025-03-09T02:00:00', 'America/New_York', '2025-03-09T07:00:00Z'],
      ['2025-03-09 02:59:59.5', 'America/New_York', '2025-03-09T07:59:59.500Z'],
      ['2025-03-30 01:30', 'Europe/London', '2025-03-30T01:30:00Z'],
      // Half an hour forward at Lord Howe.
      ['2025-10-05 02:15', 'Australia/Lord_Howe', '2025-10-04T15:45:00Z'],
      // Forward at midnight: a time of the missing hour, not the bare date.
      ['2026-09-06 00:30', 'America/Santiago', '2026-09-06T04:30:00Z'],
    ] as const) {
      assert.equal(skippedWallTime(text, zone), Date.parse(read), `${text} ${zone}`);
      assert.equal(parseDateTime(text, zone), Date.parse(read), `${text} ${zone}`);
    }
    for (const [text, zone] of [
      ['2025-03-09 01:59:59', 'America/New_York'],
      ['2025-03-09 03:00', 'America/New_York'],
      // Passed twice, not skipped.
      ['2025-11-02 01:30', 'America/New_York'],
      // A bare date is its day's start, wherever that falls.
      ['2026-09-06', 'America/Santiago'],
      ['2025-03-09', 'America/New_York'],
      // With an offset it is an instant, whatever the zone's clocks do.
      ['2025-03-09 02:30-05:00', 'America/New_York'],
      ['2025-03-09T02:30Z', 'America/New_York'],
      ['2025-03-09 02:30', 'UTC'],
      // Local mean time, to the second (New York's UTC-04:56:02), and the years 0-99.
      ['1800-06-01 12:00:00', 'America/New_York'],
      ['0050-06-01 12:00:00', 'America/New_York'],
      // Unreadable is not skipped.
      ['2025-02-30 02:30', 'America/New_York'],
      ['not a date', 'America/New_York'],
    ] as const) {
      assert.equal(skippedWallTime(text, zone), null, `${text} ${zone}`);
    }
  });

  it('writes a span with both offsets where they differ or an end is in the hour passed twice, and says how long one that reads backwards is, whatever zone the process runs in', () => {
    const runtimeZone = process.env.TZ;
    try {
      // A length counted on the runtime's calendar came out wrong across its own clocks going back.
      for (const processZone of ['UTC', 'Europe/London', 'America/New_York']) {
        process.env.TZ = processZone;
        assertSpans();
      }
    } finally {
      if (runtimeZone === undefined) delete process.env.TZ;
      else process.env.TZ = runtimeZone;
    }
  });
});

/** formatSpan's cases, asserted in the process's zone of the moment. */
function assertSpans() {
  const span = (from: string, to: string, zone: string, zoned = false) =>
    formatSpan(Date.parse(from), Date.parse(to), zone, zoned);
  // One hour as the clocks go forward, not the two its wall times read.
  assert.deepEqual(span('2025-03-09T06:00:00Z', '2025-03-09T07:00:00Z', 'America/New_York'), {
    start: '2025-03-09 01:00:00 UTC-05:00',
    end: '2025-03-09 03:00:00 UTC-04:00',
    note: null,
  });
  assert.deepEqual(span('2025-11-02T05:00:00Z', '2025-11-02T06:00:00Z', 'America/New_York'), {
    start: '2025-11-02 01:00:00 UTC-04:00',
    end: '2025-11-02 01:00:00 UTC-05:00',
    note: '1 hour later: the clocks go back 1 hour in between',
  });
  // One end in the hour passed twice: both carry their offsets.
  assert.deepEqual(span('2025-11-02T06:00:00Z', '2025-11-02T07:00:00Z', 'America/New_York'), {
    start: '2025-11-02 01:00:00 UTC-05:00',
    end: '2025-11-02 02:00:00 UTC-05:00',
    note: null,
  });
  assert.deepEqual(span('2025-10-25T23:30:00Z', '2025-10-26T01:00:00Z', 'Europe/London', true), {
    start: '2025-10-26 00:30:00 UTC+01:00',
    end: '2025-10-26 01:00:00 UTC',
    note: null,
  });
  assert.deepEqual(span('2025-10-26T00:30:00Z', '2025-10-26T01:00:00Z', 'Europe/London', true), {
    start: '2025-10-26 01:30:00 UTC+01:00',
    end: '2025-10-26 01:00:00 UTC',
    note: '30 minutes later: the clocks go back 1 hour in between',
  });
  // Lord Howe goes back half an hour.
  assert.equal(
    span('2025-04-05T14:50:00Z', '2025-04-05T15:05:00Z', 'Australia/Lord_Howe').note,
    '15 minutes later: the clocks go back 30 minutes in between',
  );
  // Any other span reads as the table writes its times.
  assert.deepEqual(span('2026-01-31T10:00:00Z', '2026-01-31T11:30:00Z', 'America/New_York'), {
    start: '2026-01-31 05:00:00',
    end: '2026-01-31 06:30:00',
    note: null,
  });
  assert.deepEqual(span('2026-01-31T10:00:00Z', '2026-01-31T11:30:00Z', 'UTC', true), {
    start: '2026-01-31 10:00:00 UTC',
    end: '2026-01-31 11:30:00 UTC',
    note: null,
  });
}
