import { ORG_ROLES } from '@/lib/store/types';
import { EXIT } from './args';

export const HELP = `org-events admin CLI

Usage: npx org-events <command> [options] [--json] [--database URL]
       (or npm run cli -- <command> ...; npm prints its own banner on stdout,
       so pipe --json output from npx org-events)

Commands:
  migrate
      Create or upgrade the database schema (every command also does this),
      naming the migrations it applied.
  backup --out FILE
      Copy a SQLite database to FILE (a new file, readable by its owner only)
      while servers go on using it: one consistent moment, deleted content
      left out. FILE is complete or not there (stopped by a signal, the
      partial copy is removed). On PostgreSQL use pg_dump.

  orgs create --name NAME [--id ID]
      Create an organization. NAME: 1 to 64 characters on one line (trimmed).
      ID: 24 lowercase hex digits (default: a new one).
  orgs list
      List organizations with their event counts.

  keys create --org ORG_ID --role ROLE [--description TEXT]
      Create an API key with a role in an organization. Prints the private key
      once: only a hash of it is stored, so it can never be shown again.
  keys grant --key PUBLIC_KEY --org ORG_ID --role ROLE
      Give an existing key a role in (another) organization.
  keys list [--org ORG_ID]
      List keys (never their secrets), optionally only those of one organization.
  keys revoke --key PUBLIC_KEY
      Disable a key; it can no longer authenticate.
  keys rotate --key PUBLIC_KEY
      Give a key a new private key, printed once; the old one is refused at
      once. Public key, id and roles stay.
  keys rehash
      Encrypt every stored key hash with ORG_EVENTS_SECRET (after setting it,
      or after rotating it: the old one in ORG_EVENTS_PREVIOUS_SECRET).

  seed --org ORG_ID --events N [--seed S] [--from DATE] [--to DATE]
       [--variant hosted|self-hosted] [--batch-size N] [--create-org --name NAME]
      Generate N realistic demo events. The organization must exist, or pass
      --create-org --name NAME to create it if missing (NAME as for orgs
      create; an existing organization is used as it is, and a NAME that
      differs from its name is noted on stderr, not applied). Deterministic:
      the same --seed (default 1), variant, organization and range give the
      same events, so re-running adds nothing. Without --from/--to the range
      is the 90 days up to the start of the current UTC hour.

  import --org ORG_ID FILE [--rehome] [--batch-size N] [--max-record-bytes N]
      Import events from FILE ("-" for stdin): a list envelope as the API
      returns it ({"results": [...]}), a JSON array, or NDJSON (one event per
      line; a line may hold a page, or pages appended by curl >> FILE, or an
      array), any of them gzip-compressed (events.ndjson.gz) or not. Invalid
      records are reported with their line or index and skipped. A record
      nesting more than 100 levels deep is invalid (MongoDB's limit), as is
      an NDJSON line that is not UTF-8 (a JSON document that is not stops
      the import at that byte).
      Events already stored (same id) are skipped, so imports can be re-run.
      Records naming another organization are refused unless --rehome.
      Each record is stored as its own text (raw included), byte for byte.
      A record over --max-record-bytes (default IMPORT_MAX_RECORD_BYTES,
      1 MB) is reported and skipped. Each batch (--batch-size, default 20,000
      events) is written atomically.
      Every import is recorded (see imports).

  imports list [--org ORG_ID] [--limit N]
      The import ledger: every import and mirror run with its source, start
      and end, inserted / skipped (already present) / rejected counts, status;
      of one organization, or of all of them (with an ORG column).
      A run whose process is gone (killed, crashed, or silent for 60 s) is
      shown and recorded as interrupted. With --json: {orgId (with --org),
      runs: [...], more}, more true when older runs were left out (an object,
      where orgs list and keys list, never cut short, print an array).
  imports undo ID [--force]
      Remove exactly the events run ID inserted (not those it skipped as
      already present), counters kept exact; the run is marked undone. An
      interrupted run is undone like any other; one still running (its
      process alive) needs --force.

  events prune --org ORG_ID --before DATE [--dry-run]
      Retention: delete every event created before DATE, in short
      transactions, counters kept exact. --dry-run prints how many would go.

  mirror --org ORG_ID --source BASE_URL --source-org ORG_ID --public-key PUB
         [--private-key KEY] [--since DATE] [--follow [--interval SECONDS]]
         [--requests-per-minute N] [--items-per-page N] [--max-record-bytes N]
      Copy a live organization through its own API (BASE_URL: the hosted
      service's or a self-hosted installation's .../api/public/v1.0; a private
      CA through NODE_EXTRA_CA_CERTS) into ORG_ID, with raw. The private key
      comes from MIRROR_PRIVATE_KEY (better) or --private-key. Resumes from
      its checkpoint; --follow keeps the copy current every --interval seconds
      (default 60) until SIGINT/SIGTERM, which end it after the current page.
      Defaults: 500 requests per minute, 500 events per page. A record over
      --max-record-bytes (default IMPORT_MAX_RECORD_BYTES, 1 MB) is reported
      and not copied; an answer longer than a page of such records ends the
      mirror.

  events list --org ORG_ID [FILTERS] [--page N] [--limit N] [--omit-count]
       [--include-raw]
      One page of the organization's events, newest first (default page 1,
      100 per page, at most 500): a table, or with --json exactly the API's
      list body ({links, results, totalCount}).
  events get --org ORG_ID --id EVENT_ID [--include-raw]
      One event, as the API returns it.
  events export --org ORG_ID [--format ndjson|csv] [--out FILE] [FILTERS]
       [--include-raw]
      Every event of the filtered set, as the API's export writes it (NDJSON:
      one list object per line; CSV: RFC 4180, one column per field), read
      from one snapshot. Written to a temporary file renamed to FILE (default:
      the export's own name, naming the org and range) once complete and
      counted (a link's file is the one replaced; a device or named pipe is
      written in place); "--out -" writes to stdout. SIGINT or SIGTERM
      cancels it, leaving no file. Progress on stderr.

  help
      This text.

Filters (events list and export; repeat an option or give a comma list for
any of several values):
  --type T, --exclude-type T, --min-date DATE, --max-date DATE,
  --actor A (username, userId, publicKey or apiKeyId), --q WORDS, and a field
  by the API's name: --username, --groupId, --clusterName, --hostname,
  --remoteAddress (also a CIDR block), ... (every field filter of the API;
  the event's database field is --database-name, --database being the store)
Every other option takes one value: given twice with different values, it is
a usage error.

Options for every command:
  --json            Print exactly one JSON document on stdout (errors too:
                    {"error": {"code": "usage"|"failed"|"config", "message",
                    "exitCode"}}; an import that stops prints its summary with
                    that "error" in it). Progress and notes still go to stderr.
  --database URL    Use this database instead of DATABASE_URL
                    (file:./data/org-events.db, a file path, or postgres://...;
                    any other scheme://, or a file: URL with a ?query, is refused;
                    so is a file that is not there, but by migrate, orgs create
                    and seed, which make it).

Values:
  ROLE    ${ORG_ROLES.join(', ')}
  DATE    2026-01-31 (00:00 UTC) or 2026-01-31T12:00:00Z (any ISO 8601 zone)

Exit codes:
  ${EXIT.ok}   success
  ${EXIT.failed}   the command failed (not found, already exists, unreadable or broken file, database error,
      an invalid configuration in the environment or a variable the command needs missing, as
      ORG_EVENTS_SECRET for keys rehash: error code "config" under --json)
  ${EXIT.someInvalid}   import or mirror finished but some records were invalid and skipped
  ${EXIT.usage}  bad command line (unknown command or option, missing or malformed value)
  ${EXIT.interrupted} import, seed, imports undo, events prune, or mirror without --follow, stopped by
      SIGINT/SIGTERM (Ctrl-C) before it was done: what was written stays, the summary is
      printed (an import's run recorded as interrupted); run again, it skips what is
      stored, or goes on deleting, or resumes. events export stopped so: no file is left
  ${EXIT.readerGone} whatever read the output stopped reading (| head): the command ends there, quietly
`;
