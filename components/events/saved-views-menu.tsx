'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { ApiRequestError } from '@/lib/client/api-client';
import {
  SAVED_VIEW_NAME_MAX,
  type SavedViewJson,
  type SavedViewState,
  savedViewsPath,
  savedViewsQueryKey,
  savedViewsQueryOptions,
  sendSavedView,
} from '@/lib/client/saved-views';
import { PopoverLoadState, ToolbarPopover } from './toolbar-popover';
import { usePopover } from './use-popover';

type Props = {
  orgId: string;
  /** The view on screen, as it would be saved. */
  current: () => SavedViewState;
  onOpen: (view: SavedViewJson) => void;
};

function failure(error: unknown): string {
  return error instanceof ApiRequestError && error.detail
    ? error.detail
    : 'The server could not be reached. Try again.';
}

/**
 * Saved views: save what is on screen (filters, zone, page size, columns)
 * under a name, for oneself or the whole organization; open, rename and
 * delete them. Stored on the server, so they follow the key anywhere.
 */
export function SavedViewsMenu({ orgId, current, onOpen }: Props) {
  const popover = usePopover();
  const { open, close } = popover;
  const queryClient = useQueryClient();
  const views = useQuery({ ...savedViewsQueryOptions(orgId), enabled: open });
  const nameId = useId();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);

  const run = async (work: () => Promise<unknown>) => {
    setPending(true);
    setError(null);
    try {
      await work();
      await queryClient.invalidateQueries({ queryKey: savedViewsQueryKey(orgId) });
      return true;
    } catch (caught) {
      setError(failure(caught));
      return false;
    } finally {
      setPending(false);
    }
  };

  /**
   * Where focus goes once the menu has rendered again: the button pressed
   * goes away (a deleted view's, a rename's form with its field), and focus
   * fell to <body>. Taken by the effect after that commit, when the element
   * exists: a frame later was at times before React had rendered it, on a
   * busy machine.
   */
  const [refocus, setRefocus] = useState<{ target: () => HTMLElement | null } | null>(null);
  useEffect(() => {
    if (!refocus) return;
    setRefocus(null);
    refocus.target()?.focus();
  }, [refocus]);

  /**
   * Deletes a view, then puts focus on the view that takes its place in the
   * list (the next, else the one before), or on the name field when none is
   * left.
   */
  const deleteView = async (id: string) => {
    const at = list.findIndex((view) => view.id === id);
    const neighbour = list[at + 1] ?? list[at - 1];
    if (!(await run(() => sendSavedView('DELETE', savedViewsPath(orgId, id))))) return;
    setRefocus({
      target: () =>
        neighbour
          ? document.querySelector<HTMLElement>(`[data-view-id="${neighbour.id}"]`)
          : document.getElementById(nameId),
    });
  };

  /** Ends a rename, giving focus back to the view's Rename button. */
  const stopRenaming = (id: string) => {
    setRenaming(null);
    setRefocus({
      target: () => document.querySelector<HTMLElement>(`[data-rename-id="${id}"]`),
    });
  };

  const onSave = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const rawName = data.get('name');
    const name = typeof rawName === 'string' ? rawName.trim() : '';
    if (!name) {
      setError('Give the view a name.');
      return;
    }
    const ok = await run(() =>
      sendSavedView('POST', savedViewsPath(orgId), {
        name,
        shared: data.get('shared') === 'on',
        state: current(),
      }),
    );
    if (ok) form.reset();
  };

  const onRename = async (event: FormEvent<HTMLFormElement>, view: SavedViewJson) => {
    event.preventDefault();
    const rawName = new FormData(event.currentTarget).get('name');
    const name = typeof rawName === 'string' ? rawName.trim() : '';
    if (!name) {
      setError('Give the view a name.');
      return;
    }
    if (await run(() => sendSavedView('PATCH', savedViewsPath(orgId, view.id), { name }))) {
      stopRenaming(view.id);
    }
  };

  const list = views.data?.results ?? [];

  return (
    <ToolbarPopover popover={popover} trigger="Views ▾" label="Saved views">
      {() => (
        <>
          <form className="save-view" onSubmit={(event) => void onSave(event)}>
            <label htmlFor={nameId} className="label">
              Save the current view
            </label>
            <div className="row">
              <input
                id={nameId}
                name="name"
                className="input"
                placeholder="Name"
                maxLength={SAVED_VIEW_NAME_MAX}
                autoComplete="off"
              />
              <button type="submit" className="button primary small" disabled={pending}>
                Save view
              </button>
            </div>
            <label className="hint">
              <input type="checkbox" name="shared" /> Share with everyone in the organization
            </label>
          </form>
          {error ? (
            <p className="alert" role="alert">
              {error}
            </p>
          ) : null}
          <div className="popover-body">
            {views.isPending || views.isError ? (
              <PopoverLoadState
                what="saved views"
                isPending={views.isPending}
                isError={views.isError}
                onRetry={() => void views.refetch()}
              />
            ) : list.length === 0 ? (
              <p className="muted">No saved views yet.</p>
            ) : (
              <ul className="view-list" aria-label="Saved views list">
                {list.map((view) => (
                  <li key={view.id} data-testid="saved-view">
                    {renaming === view.id ? (
                      <form className="row" onSubmit={(event) => void onRename(event, view)}>
                        <input
                          name="name"
                          className="input"
                          defaultValue={view.name}
                          maxLength={SAVED_VIEW_NAME_MAX}
                          aria-label={`New name for ${view.name}`}
                          autoFocus
                        />
                        <button type="submit" className="button small primary" disabled={pending}>
                          Rename
                        </button>
                        <button
                          type="button"
                          className="button small"
                          onClick={() => stopRenaming(view.id)}
                        >
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <>
                        <button
                          type="button"
                          className="view-open"
                          data-view-id={view.id}
                          aria-label={`Open view ${view.name}`}
                          onClick={() => {
                            onOpen(view);
                            close();
                          }}
                        >
                          <span className="view-name">{view.name}</span>
                          <span className="hint">
                            {view.shared ? (view.mine ? 'Shared by you' : 'Shared') : 'Only you'}
                          </span>
                        </button>
                        {view.mine ? (
                          <span className="view-actions">
                            <button
                              type="button"
                              className="button small ghost"
                              aria-label={`Rename view ${view.name}`}
                              data-rename-id={view.id}
                              onClick={() => setRenaming(view.id)}
                            >
                              Rename
                            </button>
                            <button
                              type="button"
                              className="button small ghost"
                              aria-label={`Delete view ${view.name}`}
                              disabled={pending}
                              onClick={() => void deleteView(view.id)}
                            >
                              Delete
                            </button>
                          </span>
                        ) : null}
                      </>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </div>
        </>
      )}
    </ToolbarPopover>
  );
}
