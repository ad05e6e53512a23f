import type { Kysely } from 'kysely';
import { isUniqueViolation, LiveMirrorConflictError } from './errors';
import type { Database } from './schema';
import type {
  IngestRun,
  IngestRunKind,
  IngestRunPatch,
  IngestRunStatus,
  RunsHolding,
} from './types';

/** The import ledger and the mirror checkpoints (migrations 0007 and 0009). */

type RunRow = Database['ingest_runs'] extends infer T ? { [K in keyof T]: unknown } : never;

function toRun(row: RunRow): IngestRun {
  return {
    id: row.id as string,
    orgId: row.org_id as string,
    kind: row.kind as IngestRunKind,
    source: row.source as string,
    started: Number(row.started),
    finished: row.finished === null ? null : Number(row.finished),
    inserted: Number(row.inserted),
    skipped: Number(row.skipped),
    rejected: Number(row.rejected),
    status: row.status as IngestRunStatus,
    detail: (row.detail as string | null) ?? null,
    host: (row.host as string | null) ?? null,
    pid: row.pid === null || row.pid === undefined ? null : Number(row.pid),
    heartbeat: row.heartbeat === null || row.heartbeat === undefined ? null : Number(row.heartbeat),
    undoFrom: row.undo_from === null || row.undo_from === undefined ? null : Number(row.undo_from),
  };
}

export async function createIngestRun(db: Kysely<Database>, run: IngestRun): Promise<IngestRun> {
  try {
    await insertRun(db, run);
  } catch (error) {
    if (run.kind === 'mirror' && isUniqueViolation(error)) {
      throw new LiveMirrorConflictError(
        `Another mirror of ${run.source} into ${run.orgId} is running`,
        { cause: error },
      );
    }
    throw error;
  }
  return run;
}

async function insertRun(db: Kysely<Database>, run: IngestRun): Promise<void> {
  await db
    .insertInto('ingest_runs')
    .values({
      id: run.id,
      org_id: run.orgId,
      kind: run.kind,
      source: run.source,
      started: run.started,
      finished: run.finished,
      inserted: run.inserted,
      skipped: run.skipped,
      rejected: run.rejected,
      status: run.status,
      detail: run.detail,
      host: run.host,
      pid: run.pid,
      heartbeat: run.heartbeat,
      undo_from: run.undoFrom,
    })
    .execute();
}

export async function updateIngestRun(
  db: Kysely<Database>,
  id: string,
  patch: IngestRunPatch,
  guard?: { unlessStatus: IngestRunStatus },
): Promise<boolean> {
  const values: Partial<Record<keyof Database['ingest_runs'], unknown>> = {};
  if (patch.finished !== undefined) values.finished = patch.finished;
  if (patch.inserted !== undefined) values.inserted = patch.inserted;
  if (patch.skipped !== undefined) values.skipped = patch.skipped;
  if (patch.rejected !== undefined) values.rejected = patch.rejected;
  if (patch.status !== undefined) values.status = patch.status;
  if (patch.detail !== undefined) values.detail = patch.detail;
  if (patch.heartbeat !== undefined) values.heartbeat = patch.heartbeat;
  if (patch.undoFrom !== undefined) values.undo_from = patch.undoFrom;
  if (Object.keys(values).length === 0) return true;
  let update = db
    .updateTable('ingest_runs')
    .set(values as never)
    .where('id', '=', id);
  if (guard) update = update.where('status', '<>', guard.unlessStatus);
  const result = await update.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** How many of the org's events the run added and are still stored (events_by_run). */
export async function countRunEvents(
  db: Kysely<Database>,
  orgId: string,
  runId: string,
): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function getIngestRun(db: Kysely<Database>, id: string): Promise<IngestRun | null> {
  const row = await db
    .selectFrom('ingest_runs')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toRun(row) : null;
}

export async function listIngestRuns(
  db: Kysely<Database>,
  orgId: string | undefined,
  limit = 1000,
  statuses?: readonly IngestRunStatus[],
): Promise<IngestRun[]> {
  // No status asked for is no run (and `IN ()` is no SQL PostgreSQL takes).
  if (statuses?.length === 0) return [];
  const rows = await db
    .selectFrom('ingest_runs')
    .selectAll()
    .$if(orgId !== undefined, (query) => query.where('org_id', '=', orgId!))
    .$if(statuses !== undefined, (query) => query.where('status', 'in', statuses!))
    .orderBy('started', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRun);
}

export async function getMirrorCheckpoint(
  db: Kysely<Database>,
  orgId: string,
  source: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('mirror_checkpoints')
    .select('state')
    .where('org_id', '=', orgId)
    .where('source', '=', source)
    .executeTakeFirst();
  return row?.state ?? null;
}

/**
 * Saves (or with null drops) a mirror's checkpoint. With `expected`, only if
 * the stored one is still that (null: none), as one statement: a mirror that
 * runs while an undo drops its checkpoint must not write back the position
 * it held in memory. Returns whether it was written.
 */
export async function setMirrorCheckpoint(
  db: Kysely<Database>,
  orgId: string,
  source: string,
  state: string | null,
  expected?: string | null,
): Promise<boolean> {
  const updated = Date.now();
  if (expected === undefined || expected === null) {
    if (state === null) {
      if (expected === null) return true; // none expected, none wanted
      await db
        .deleteFrom('mirror_checkpoints')
        .where('org_id', '=', orgId)
        .where('source', '=', source)
        .execute();
      return true;
    }
    const inserted = await db
      .insertInto('mirror_checkpoints')
      .values({ org_id: orgId, source, state, updated })
      .onConflict((oc) =>
        expected === null
          ? oc.columns(['org_id', 'source']).doNothing()
          : oc.columns(['org_id', 'source']).doUpdateSet({ state, updated }),
      )
      .executeTakeFirst();
    return expected === undefined || Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  const changed =
    state === null
      ? await db
          .deleteFrom('mirror_checkpoints')
          .where('org_id', '=', orgId)
          .where('source', '=', source)
          .where('state', '=', expected)
          .executeTakeFirst()
          .then((r) => r.numDeletedRows)
      : await db
          .updateTable('mirror_checkpoints')
          .set({ state, updated })
          .where('org_id', '=', orgId)
          .where('source', '=', source)
          .where('state', '=', expected)
          .executeTakeFirst()
          .then((r) => r.numUpdatedRows);
  return Number(changed) > 0;
}

/**
 * Rewrites every mirror checkpoint of an org with `rewrite` (null drops
 * it), each only over the state it was computed from: a mirror saving
 * meanwhile (its own save is compare-and-set too) makes that one computed
 * again from what it saved. Returns how many changed.
 */
export async function rewriteMirrorCheckpoints(
  db: Kysely<Database>,
  orgId: string,
  rewrite: (state: string, source: string) => string | null,
): Promise<number> {
  let changed = 0;
  const rows = await db
    .selectFrom('mirror_checkpoints')
    .select(['source', 'state'])
    .where('org_id', '=', orgId)
    .execute();
  for (const row of rows) {
    let state: string | null = row.state;
    while (state !== null) {
      const next = rewrite(state, row.source);
      if (next === state) break;
      if (await setMirrorCheckpoint(db, orgId, row.source, next, state)) {
        changed++;
        break;
      }
      state = await getMirrorCheckpoint(db, orgId, row.source);
    }
  }
  return changed;
}

/** The oldest `created` (stored sort key, ms) among the events a run inserted that are still stored, or null. */
export async function oldestRunEvent(
  db: Kysely<Database>,
  orgId: string,
  runId: string,
): Promise<number | null> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.min<number | null>('created').as('oldest'))
    .where('org_id', '=', orgId)
    .where('run_id', '=', runId)
    .executeTakeFirst();
  return row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
}

/** Ids looked up per statement: one parameter each. */
const IDS_PER_LOOKUP = 1000;

/** See EventStore.runsHolding. */
export async function runsHolding(
  db: Kysely<Database>,
  orgId: string,
  ids: readonly string[],
  mirror: { source: string },
): Promise<RunsHolding> {
  const held: RunsHolding = { others: {}, bySource: 0 };
  for (let start = 0; start < ids.length; start += IDS_PER_LOOKUP) {
    const rows = await db
      .selectFrom('events as e')
      .innerJoin('ingest_runs as r', 'r.id', 'e.run_id')
      .select([
        'e.run_id as runId',
        'r.kind',
        'r.source',
        (eb) => eb.fn.countAll<number>().as('events'),
        (eb) => eb.fn.min<number>('e.created').as('oldest'),
      ])
      .where('e.org_id', '=', orgId)
      .where('e.id', 'in', ids.slice(start, start + IDS_PER_LOOKUP))
      .groupBy(['e.run_id', 'r.kind', 'r.source'])
      .execute();
    for (const row of rows) {
      if (row.kind === 'mirror' && row.source === mirror.source) {
        held.bySource += Number(row.events);
      } else {
        const runId = row.runId!;
        held.others[runId] = Math.min(held.others[runId] ?? Infinity, Number(row.oldest));
      }
    }
  }
  return held;
}
