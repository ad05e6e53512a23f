import { ORG_ROLES } from '@/lib/store/types';
import { EXIT } from './args';

export const HELP = `org-events admin CLI

Usage: npm run cli -- <command> [options] [--json] [--database URL]

Commands:
  migrate
      Create or upgrade the database schema (every command also does this).

  orgs create --name NAME [--id ID]
      Create an organization. ID: 24 lowercase hex digits (default: a new one).
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
  keys rehash
      Encrypt every stored key hash with ORG_EVENTS_SECRET (after setting it,
      or after rotating it: the old one in ORG_EVENTS_PREVIOUS_SECRET).

  seed --org ORG_ID --events N [--seed S] [--from DATE] [--to DATE]
       [--variant hosted|self-hosted] [--batch-size N] [--create-org --name NAME]
      Generate N realistic demo events. The organization must exist, or pass
      --create-org --name NAME to create it. Deterministic: the same --seed
      (default 1), organization and range give the same events, so re-running
      adds nothing. Without --from/--to the range is the 90 days up to the
      start of the current UTC hour.

  import --org ORG_ID FILE [--rehome] [--batch-size N]
      Import events from FILE ("-" for stdin): a list envelope as the API
      returns it ({"results": [...]}), a JSON array, or NDJSON (one event per
      line). Invalid records are reported with their line or index and skipped.
      Events already stored (same id) are skipped, so imports can be re-run.
      Records naming another organization are refused unless --rehome.
      Each batch is written atomically.

  help
      This text.

Options for every command:
  --json            Print exactly one JSON document on stdout (errors too:
                    {"error": {...}}). Progress and notes still go to stderr.
  --database URL    Use this database instead of DATABASE_URL
                    (file:./data/org-events.db, or postgres://...).

Values:
  ROLE    ${ORG_ROLES.join(', ')}
  DATE    2026-01-31 (00:00 UTC) or 2026-01-31T12:00:00Z (any ISO 8601 zone)

Exit codes:
  ${EXIT.ok}   success
  ${EXIT.failed}   the command failed (not found, already exists, unreadable or broken file, database error)
  ${EXIT.someInvalid}   import finished but some records were invalid and skipped
  ${EXIT.usage}  bad command line (unknown command or option, missing or malformed value)
`;
