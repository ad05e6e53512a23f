import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from './schema';

/**
 * Saved dashboard views. A view belongs to the API key that saved it and is
 * seen by that key alone, or by every key of the organization when shared.
 * Only its owner renames, re-shares or deletes it. `state` is opaque here
 * (JSON text the dashboard writes and reads).
 */
export type SavedView = {
  id: string;
  orgId: string;
  ownerKeyId: string;
  name: string;
  shared: boolean;
  state: string;
  created: number;
  updated: number;
};

export type SavedViewPatch = { name?: string; shared?: boolean; state?: string };

type Table = Database['saved_views'];

function toSavedView(row: Selectable<Table>): SavedView {
  return {
    id: row.id,
    orgId: row.org_id,
    ownerKeyId: row.owner_key_id,
    name: row.name,
    shared: Number(row.shared) !== 0,
    state: row.state,
    created: Number(row.created),
    updated: Number(row.updated),
  };
}

/** The views a key sees in an org: its own and the shared ones, by name. */
export async function listSavedViews(
  db: Kysely<Database>,
  orgId: string,
  apiKeyId: string,
): Promise<SavedView[]> {
  const rows = await db
    .selectFrom('saved_views')
    .selectAll()
    .where('org_id', '=', orgId)
    .where((eb) => eb.or([eb('owner_key_id', '=', apiKeyId), eb('shared', '=', 1)]))
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map(toSavedView);
}

export async function createSavedView(db: Kysely<Database>, view: SavedView): Promise<SavedView> {
  const row: Insertable<Table> = {
    id: view.id,
    org_id: view.orgId,
    owner_key_id: view.ownerKeyId,
    name: view.name,
    shared: view.shared ? 1 : 0,
    state: view.state,
    created: view.created,
    updated: view.updated,
  };
  await db.insertInto('saved_views').values(row).execute();
  return view;
}

/** Changes a view its owner holds; null when there is no such view of this owner. */
export async function updateSavedView(
  db: Kysely<Database>,
  orgId: string,
  id: string,
  ownerKeyId: string,
  patch: SavedViewPatch,
  now: number,
): Promise<SavedView | null> {
  const set: Updateable<Table> = { updated: now };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.shared !== undefined) set.shared = patch.shared ? 1 : 0;
  if (patch.state !== undefined) set.state = patch.state;
  const result = await db
    .updateTable('saved_views')
    .set(set)
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('owner_key_id', '=', ownerKeyId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return null;
  const row = await db
    .selectFrom('saved_views')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toSavedView(row) : null;
}

/** Deletes a view its owner holds; false when there is no such view of this owner. */
export async function deleteSavedView(
  db: Kysely<Database>,
  orgId: string,
  id: string,
  ownerKeyId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('saved_views')
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('owner_key_id', '=', ownerKeyId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
