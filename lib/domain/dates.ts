import { TZDate } from '@date-fns/tz';
import { UTCDate } from '@date-fns/utc';
// Each function from its own module: the package's index loads all of
// date-fns (hundreds of modules), a sixth of every CLI command's start.
import { format } from 'date-fns/format';
import { formatDistanceStrict } from 'date-fns/formatDistanceStrict';
import { formatISO } from 'date-fns/formatISO';

/**
 * Every date the dashboard shows, reads or writes goes through this module,
 * so the table, the date inputs and the URL always agree on one time zone.
 * The API itself only ever sees UTC (`toApiDateTime`).
 */

/** The one explicit choice the user makes: UTC, or the browser's own zone. */
export type TimeZoneMode = 'utc' | 'local';

export const UTC_ZONE = 'UTC';

/**
 * The browser's zone, remembered in a plain cookie (a display preference, not
 * a secret) so the server can render local times the way the browser will.
 */
export const LOCAL_ZONE_COOKIE = 'org_events_tz';

/** The IANA zone a mode stands for; `localZone` is the browser's (or the server's guess). */
export function zoneFor(mode: TimeZoneMode, localZone: string): string {
  return mode === 'utc' ? UTC_ZONE : localZone;
}

let detectedZone: string | undefined;

/**
 * The browser's IANA zone, or UTC where the runtime cannot say. Asked once per
 * page load: creating the formatter that knows it is costly, and React asks on
 * every render.
 */
export function detectLocalZone(): string {
  if (detectedZone === undefined) {
    try {
      detectedZone = Intl.DateTimeFormat().resolvedOptions().timeZone || UTC_ZONE;
    } catch {
      detectedZone = UTC_ZONE;
    }
  }
  return detectedZone;
}

/** True when the runtime knows the zone name (a cookie value is only a hint). */
export function isKnownZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * A Date whose getters read wall-clock time in `zone`. UTC and the runtime's
 * own zone (the browser's, in the browser) need no time-zone lookup, which
 * makes them many times cheaper than TZDate; any other zone (the server
 * rendering a browser's local time) uses TZDate.
 */
function inZone(millis: number, zone: string): Date {
  if (zone === UTC_ZONE) return new UTCDate(millis);
  if (zone === detectLocalZone()) return new Date(millis);
  return new TZDate(millis, zone);
}

/*
 * Years are written with date-fns's `uuuu` (the proleptic year, as ISO 8601
 * and the API count), never `yyyy`: that is the year of the era, which
 * writes the year 0000 (1 BC) as 0001.
 */

/** "2026-01-02 10:04:05": the wall-clock time in a zone, alone. */
function wallTimestamp(millis: number, zone: string): string {
  return format(inZone(millis, zone), 'uuuu-MM-dd HH:mm:ss');
}

/**
 * "2026-01-02 10:04:05", the absolute time shown in the table, the chart
 * and the comparison. In the hour the clocks pass twice it carries its
 * offset ("2025-11-02 01:30:00 UTC-05:00"): both passes read alike, so two
 * events an hour apart, or a chart bar's start and end, showed one time.
 */
export function formatTimestamp(millis: number, zone: string): string {
  const wall = wallTimestamp(millis, zone);
  return isRepeatedWallTime(millis, zone) ? `${wall} ${formatZoneOffset(millis, zone)}` : wall;
}

/** "2026-01-02 10:04:05 UTC+01:00": the table's form with the zone it is in, for text read apart from the table. */
export function formatZonedTimestamp(millis: number, zone: string): string {
  return `${wallTimestamp(millis, zone)} ${formatZoneOffset(millis, zone)}`;
}

/**
 * The two ends of the span from `start` up to `end` (its first instant
 * past), as text of their own: "2026-01-02 10:00:00 – 11:00:00" in the
 * table's form, or both with their offsets (`zoned`, or where the offsets
 * differ or either end is in the hour passed twice: a bar from 01:00 to
 * 03:00 as the clocks go forward is one hour long, not two). Where the
 * clocks went back between them, so the end reads no later than the start
 * ("01:30:00 UTC-04:00 to 01:10:00 UTC-05:00"), `note` says how long the
 * span is and why: "40 minutes later: the clocks go back 1 hour in between".
 */
export function formatSpan(
  start: number,
  end: number,
  zone: string,
  zoned = false,
): { start: string; end: string; note: string | null } {
  const back = offsetAt(start, zone) - offsetAt(end, zone);
  const withOffsets =
    zoned || back !== 0 || isRepeatedWallTime(start, zone) || isRepeatedWallTime(end, zone);
  const write = withOffsets ? formatZonedTimestamp : formatTimestamp;
  const readsBackwards = end > start && wallClockAt(end, zone) <= wallClockAt(start, zone);
  return {
    start: write(start, zone),
    end: write(end, zone),
    note:
      readsBackwards && back > 0
        ? `${durationWords(start, end)} later: the clocks go back ${durationWords(0, back)} in between`
        : null,
  };
}

/**
 * "1 hour 30 minutes": the time from one instant to a later one, in words.
 * Counted in fixed hours, not by date-fns's intervalToDuration: that walks
 * the runtime's own calendar, and across its clocks going back made 30
 * minutes "-1 years 11 months 29 days 24 hours 30 minutes".
 */
function durationWords(from: number, to: number): string {
  const seconds = Math.round((to - from) / 1000);
  if (seconds === 0) return 'under a second';
  const parts: [number, string][] = [
    [Math.floor(seconds / 3600), 'hour'],
    [Math.floor((seconds % 3600) / 60), 'minute'],
    [seconds % 60, 'second'],
  ];
  return parts
    .filter(([count]) => count > 0)
    .map(([count, unit]) => `${count} ${unit}${count === 1 ? '' : 's'}`)
    .join(' ');
}

/** "Fri, 2 Jan 2026, 10:04:05 UTC+01:00", the long form shown in the detail view. */
export function formatLongTimestamp(millis: number, zone: string): string {
  return `${format(inZone(millis, zone), 'EEE, d MMM uuuu, HH:mm:ss')} ${formatZoneOffset(millis, zone)}`;
}

/** The zone as people name it: "UTC", or its IANA name ("Europe/Paris"). */
export function zoneName(zone: string): string {
  return zone === UTC_ZONE ? 'UTC' : zone;
}

/** "UTC" or "UTC+01:00": the offset in force in a zone at a given instant. */
export function formatZoneOffset(millis: number, zone: string): string {
  if (zone === UTC_ZONE) return 'UTC';
  const offset = format(inZone(millis, zone), 'xxx');
  return offset === '+00:00' ? 'UTC' : `UTC${offset}`;
}

/** "5 minutes ago" / "in 2 hours", relative to `now`. */
export function formatRelative(millis: number, now: number): string {
  return formatDistanceStrict(millis, now, { addSuffix: true });
}

/** Parses an ISO 8601 timestamp from the API ("2026-01-02T10:04:05Z"); null when invalid. */
export function parseApiDateTime(value: string): number | null {
  // The one reader, whose served-form path is digit by digit: date-fns's
  // parseJSON read the years 0000-0099 as 1900-1999.
  return parseDateTime(value);
}

/** The API's form: ISO 8601 in UTC with a Z, second precision ("2026-01-02T10:04:05Z"). */
export function toApiDateTime(millis: number): string {
  return formatISO(inZone(millis, UTC_ZONE)).replace(/\+00:00$/, 'Z');
}

/**
 * ISO 8601 calendar date, optionally with a time (`T`, `t` or a space before
 * it; seconds and a fraction optional) and an offset (`Z`, `z`, `+02:00`,
 * `+0200`, `+02`). A space where the offset's `+` belongs is read as `+`: an
 * unencoded `+` in a query string decodes to one.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * The one reader of date-times, for the API's `minDate`/`maxDate`, the CLI's
 * date flags, imported `created` values and the dashboard's URL and inputs.
 *
 * With an offset the text is an exact instant. Without one it is wall-clock
 * time in `zone`; when no zone is given (the API, the CLI, imports), a bare
 * date means its midnight UTC and a time without an offset is refused as
 * ambiguous. A date or time that does not exist (February 30, 24:00, a
 * 60th second) is null everywhere, never rolled over. So is an instant
 * outside the years 0000-9999 once its offset is applied
 * (`9999-12-31T23:59:59-01:00`): the served form, four digits of year,
 * cannot write it, so a stored `created` could not be read back.
 */
export function parseDateTime(text: string, zone?: string): number | null {
  const instant = parseDateTimeUnbounded(text, zone);
  return instant !== null && instant >= FIRST_INSTANT && instant <= LAST_INSTANT ? instant : null;
}

/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the served form's range. */
export const FIRST_INSTANT = -62_167_219_200_000;
export const LAST_INSTANT = 253_402_300_799_999;

function parseDateTimeUnbounded(text: string, zone?: string): number | null {
  const served = parseServedForm(text);
  if (served !== undefined) return served;
  const match = DATE_TIME.exec(text.trim());
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  const hasTime = h !== undefined;
  const hasOffset = zulu !== undefined || sign !== undefined;
  if (hasTime && !hasOffset && zone === undefined) return null;
  if (!hasTime && hasOffset) return null; // "2026-01-31Z" is not ISO 8601
  const hour = hasTime ? Number(h) : 0;
  const minute = hasTime ? Number(mi) : 0;
  const second = s === undefined ? 0 : Number(s);
  const millis = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return null;

  if (!hasOffset && zone !== undefined && zone !== UTC_ZONE) {
    // As with Date, the constructor reads years 0-99 as 1900-1999, and
    // setFullYear afterwards kept the offset in whole minutes (a zone's
    // local mean time, New York's UTC-04:56:02, came out 2 s late): such a
    // year is read 400 years on (the calendar repeats every 146,097 days,
    // and those centuries keep the same local mean time) and moved back.
    const shift = year < 100 ? GREGORIAN_CYCLE_YEARS : 0;
    const wall = new Date(0);
    wall.setUTCFullYear(year + shift, month - 1, day);
    wall.setUTCHours(hour, minute, second, millis);
    const instant = wallTimeInstant(wall.getTime(), zone);
    return Number.isFinite(instant) ? instant - (shift === 0 ? 0 : GREGORIAN_CYCLE_MS) : null;
  }
  const offsetHours = oh === undefined ? 0 : Number(oh);
  const offsetMinutes = om === undefined ? 0 : Number(om);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // not Date.UTC: it maps years 0-99 to 19xx
  date.setUTCHours(hour, minute, second, millis);
  const offset = (offsetHours * 60 + offsetMinutes) * 60_000;
  return date.getTime() - (sign === '-' ? -offset : offset);
}

/**
 * The instant a wall-clock time in `zone` names (`wall`: those fields read
 * as UTC), chosen as Temporal's and Date's "compatible" rule does, the same
 * in every runtime: a time the clocks pass twice (they go back) is its first
 * pass, one they skip (they go forward) is read at the offset before the
 * change, so 02:30 where 02:00 becomes 03:00 is 03:30. TZDate's constructor
 * chose by the runtime's own zone: London's repeated 01:30 was its first
 * pass in a browser in London and its second on a server in UTC, and Lord
 * Howe's was always its second.
 */
export function wallTimeInstant(wall: number, zone: string): number {
  // No zone changes its offset twice within two days, so the offsets a
  // day before and after are the ones on either side of any change here.
  const before = wall - offsetAt(wall - DAY_MS, zone);
  const after = wall - offsetAt(wall + DAY_MS, zone);
  const passes = [before, after].filter((instant) => wallClockAt(instant, zone) === wall);
  return passes.length > 0 ? Math.min(...passes) : before;
}

/** Whether the wall-clock time in `zone` at an instant happens twice there (the clocks went back). */
function isRepeatedWallTime(millis: number, zone: string): boolean {
  if (zone === UTC_ZONE) return false;
  const before = offsetAt(millis - DAY_MS, zone);
  const after = offsetAt(millis + DAY_MS, zone);
  // Only where the clocks went back within a day either side (most instants).
  if (before <= after) return false;
  const wall = wallClockAt(millis, zone);
  return [wall - before, wall - after].some(
    (instant) => instant !== millis && wallClockAt(instant, zone) === wall,
  );
}

/** The wall-clock time in `zone` at an instant, its fields read as UTC (to the second: local mean times have seconds). */
export function wallClockAt(instant: number, zone: string): number {
  const date = inZone(instant, zone);
  const wall = new Date(0);
  wall.setUTCFullYear(date.getFullYear(), date.getMonth(), date.getDate());
  wall.setUTCHours(date.getHours(), date.getMinutes(), date.getSeconds(), date.getMilliseconds());
  return wall.getTime();
}

/**
 * Where `text` is a wall-clock time in `zone` (a time, no offset) that its
 * clocks skip (they go forward: 02:30 where 02:00 becomes 03:00), the
 * instant parseDateTime reads it as (03:30), so a form can say the bound
 * moved; null for any other text. A bare date is its day's start, wherever
 * that falls (01:00 where the clocks go forward at midnight), never moved.
 */
export function skippedWallTime(text: string, zone: string): number | null {
  const match = DATE_TIME.exec(text.trim());
  if (!match || match[4] === undefined || match[8] !== undefined || match[9] !== undefined) {
    return null;
  }
  const instant = parseDateTime(text, zone);
  if (instant === null) return null;
  const [, y, mo, d, h, mi, s] = match;
  const read = inZone(instant, zone);
  const same =
    read.getFullYear() === Number(y) &&
    read.getMonth() + 1 === Number(mo) &&
    read.getDate() === Number(d) &&
    read.getHours() === Number(h) &&
    read.getMinutes() === Number(mi) &&
    read.getSeconds() === (s === undefined ? 0 : Number(s));
  return same ? null : instant;
}

/** How far `zone`'s clocks are ahead of UTC at an instant, in milliseconds. */
export function offsetAt(instant: number, zone: string): number {
  return wallClockAt(instant, zone) - instant;
}

/** The Gregorian calendar repeats every 400 years, 146,097 days. */
const GREGORIAN_CYCLE_YEARS = 400;
const GREGORIAN_CYCLE_MS = 146_097 * 86_400_000;

const DIGIT_0 = 48;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The served form alone, `YYYY-MM-DDTHH:MM:SSZ` or with `.mmm` before the Z
 * (what the API, the real service and every export write), read digit by
 * digit: undefined when the text has another shape (the general path reads
 * it), null when it names no real instant. Imports read one per record; the
 * regular expression and two Date objects were a twentieth of a parsing
 * thread. Days are counted in the proleptic Gregorian calendar, as
 * setUTCFullYear does (years 0-99 included).
 */
function parseServedForm(text: string): number | null | undefined {
  const length = text.length;
  if (length !== 20 && length !== 24) return undefined;
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // T
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(length - 1) !== 90 || // Z
    (length === 24 && text.charCodeAt(19) !== 46) // .
  ) {
    return undefined;
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  const millis = length === 24 ? digitsAt(text, 20, 3) : 0;
  if ((year | month | day | hour | minute | second | millis) < 0) return undefined;
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return null;
  return (
    (daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second) * 1000 + millis
  );
}

/**
 * The number `count` decimal digits at `from` spell, or -1 when one is not a
 * digit. A module function, not a closure per call: tsx names every closure
 * it creates (a defineProperty call), which cost more than the parsing.
 */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - DIGIT_0;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * Whether the day exists in the proleptic Gregorian calendar, years 0-99
 * included (date-fns's isExists maps them to 19xx).
 */
function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/** The accepted forms, in words, for error messages. */
export const DATE_TIME_FORMS =
  'a date (2026-01-31) or an ISO 8601 date-time with Z or a UTC offset (2026-01-31T12:00:00Z)';

/**
 * The URL's form of an instant, written in the chosen zone with its offset so
 * a shared link names the same instant anywhere: "2026-01-02T10:00Z" in UTC,
 * "2026-01-02T11:00+01:00" in local time. Seconds only when not zero, and
 * milliseconds likewise: a "from" typed as 10:04:05.500 was written
 * 10:04:05 and read back half a second earlier, taking in the events
 * stored within that half second.
 */
export function toUrlDateTime(millis: number, zone: string): string {
  const date = inZone(millis, zone);
  const unit =
    date.getMilliseconds() !== 0 ? 'millisecond' : date.getSeconds() !== 0 ? 'second' : 'minute';
  return urlForm(millis, zone, unit);
}

/** What a written time names: a minute ("11:30"), a second ("11:30:00") or an instant ("11:30:00.250"). */
type TimeUnit = 'minute' | 'second' | 'millisecond';

const CLOCK_PATTERN: Record<TimeUnit, string> = {
  minute: 'HH:mm',
  second: 'HH:mm:ss',
  millisecond: 'HH:mm:ss.SSS',
};

function urlForm(millis: number, zone: string, unit: TimeUnit): string {
  const date = inZone(millis, zone);
  const offset = format(date, 'xxx');
  return format(date, `uuuu-MM-dd'T'${CLOCK_PATTERN[unit]}`) + (offset === '+00:00' ? 'Z' : offset);
}

/**
 * The minute, second or instant a "to" bound's last millisecond (parseEndBound)
 * closes, and its start: the one way to write that bound again, in the URL
 * and the custom range's input, so it reads back as the same end. A whole
 * minute of the zone's wall clock (a day's end is its last minute, 23:59),
 * else a whole second, else the instant itself.
 */
function namedEnd(end: number, zone: string): { start: number; unit: TimeUnit } {
  const minute = end + 1 - MINUTE_MS;
  // The zone's wall minute, not UTC's: a local mean time (New York's
  // UTC-04:56:02 until 1883) puts its minutes 2 s off UTC's.
  if (wallClockAt(minute, zone) % MINUTE_MS === 0) return { start: minute, unit: 'minute' };
  if ((end + 1) % 1000 === 0) return { start: end - 999, unit: 'second' };
  return { start: end, unit: 'millisecond' };
}

/**
 * The URL's form of a "to" bound (parseEndBound's last millisecond): the
 * minute, second or instant it covers, as typed: "to=2026-01-31T11:30Z" is
 * that minute, "to=2026-01-31T11:30:00Z" only its first second.
 */
export function toUrlEndBound(end: number, zone: string): string {
  const { start, unit } = namedEnd(end, zone);
  return urlForm(start, zone, unit);
}

const BARE_DATE = /^\s*\d{4}-\d{2}-\d{2}\s*$/;

/**
 * A typed or linked "to" bound in `zone`, as the last millisecond it covers:
 * a bound includes all of what it names, so "2026-01-31" is that whole
 * calendar day there, "2026-01-31 11:30" all of that minute and
 * "2026-01-31 11:30:00" that second alone; with a fraction of a second it is
 * exact. The named unit is read from the text, never from the instant: a
 * second ending in ":00" falls on a whole minute, and was taken for it.
 *
 * A day ends where the next one starts (a day when daylight saving time
 * starts or ends is 23 or 25 hours long: adding 24 hours to its midnight
 * misses or overshoots an hour; and where clocks go back at midnight,
 * 23:59:59 happens twice, the day ending at the second pass).
 */
export function parseEndBound(text: string, zone: string): number | null {
  if (!BARE_DATE.test(text)) {
    const start = parseDateTime(text, zone);
    if (start === null) return null;
    const [, , , , , , second, fraction] = DATE_TIME.exec(text.trim()) ?? [];
    if (second === undefined) return start + MINUTE_MS - 1;
    return fraction === undefined ? start + 999 : start;
  }
  const day = text.trim();
  if (parseDateTime(`${day} 00:00:00`, zone) === null) return null; // no such day
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  // setUTCFullYear, not Date.UTC: that reads the years 0-99 as 1900-1999,
  // so "to 0050-06-01" ended on 1950-06-01.
  const next = new Date(0);
  next.setUTCFullYear(y, m - 1, d + 1);
  if (next.getUTCFullYear() > 9999) {
    // The day after 9999-12-31 has no four-digit year to read it by. No
    // clock changes at that midnight, so the day ends with its 23:59; where
    // that lies past the last instant the served form can write (zones west
    // of UTC), no event is later than that instant.
    const lastMinute = parseDateTime(`${day} 23:59`, zone);
    return lastMinute === null ? LAST_INSTANT : lastMinute + MINUTE_MS - 1;
  }
  const nextStart = parseDateTime(`${calendarDay(next)} 00:00:00`, zone);
  return nextStart === null ? null : nextStart - 1;
}

/** "0050-06-02": a Date's UTC calendar day, its year in four digits (toISOString writes 10000 as +010000). */
function calendarDay(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}`;
}

/**
 * The form date inputs show and take: the table's own ISO 24-hour format.
 * Words for people, never a date-fns pattern (there `yyyy` would be the
 * year of the era, 0001 for the year 0000): parseDateTime reads the inputs.
 */
export const DATE_INPUT_FORMAT = 'yyyy-MM-dd HH:mm:ss';

/**
 * The value of a date text input showing an instant in a zone: "2026-01-31
 * 23:59:00". In the hour the clocks pass twice, with the offset that tells
 * the passes apart, as parseDateTime reads it ("2025-11-02 01:30:00-05:00"):
 * without it the second pass, applied again as shown, was read as the first.
 * A fraction of a second is shown where there is one ("23:59:00.250"), so
 * that an Apply as shown keeps the bound.
 */
export function toDateTimeInputValue(millis: number, zone: string): string {
  const millisecond = inZone(millis, zone).getMilliseconds();
  const wall =
    wallTimestamp(millis, zone) +
    (millisecond === 0 ? '' : `.${String(millisecond).padStart(3, '0')}`);
  return isRepeatedWallTime(millis, zone) ? wall + format(inZone(millis, zone), 'xxx') : wall;
}

/**
 * The custom range's "to" input for a bound (parseEndBound's last
 * millisecond): what it covers, written as parseEndBound reads it back,
 * "2026-01-31 11:30" for the minute and "2026-01-31 11:30:00" for its first
 * second alone (a day shows as its last minute, "2026-01-31 23:59"). In the
 * hour the clocks pass twice, with its offset, as toDateTimeInputValue.
 */
export function toEndInputValue(end: number, zone: string): string {
  const { start, unit } = namedEnd(end, zone);
  const wall = format(inZone(start, zone), `uuuu-MM-dd ${CLOCK_PATTERN[unit]}`);
  return isRepeatedWallTime(start, zone) ? wall + format(inZone(start, zone), 'xxx') : wall;
}

/** The API's form with milliseconds when they matter ("…T23:59:59.999Z"). */
export function toApiDateTimeExact(millis: number): string {
  return millis % 1000 === 0 ? toApiDateTime(millis) : new Date(millis).toISOString();
}

/** "just now", "45 s ago", "3 min ago", "3 h ago", "2 d ago", "5 mo ago", "2 y ago". */
export function formatShortRelative(millis: number, now: number): string {
  const seconds = Math.round((now - millis) / 1000);
  const future = seconds < 0;
  const s = Math.abs(seconds);
  let text: string;
  if (s < 10) return 'just now';
  if (s < 60) text = `${s} s`;
  else if (s < 3600) text = `${Math.floor(s / 60)} min`;
  else if (s < 86_400) text = `${Math.floor(s / 3600)} h`;
  else if (s < 30 * 86_400) text = `${Math.floor(s / 86_400)} d`;
  else if (s < 365 * 86_400) text = `${Math.floor(s / (30 * 86_400))} mo`;
  else text = `${Math.floor(s / (365 * 86_400))} y`;
  return future ? `in ${text}` : `${text} ago`;
}

/** Milliseconds per preset window, for presets like "last 24 hours". */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
