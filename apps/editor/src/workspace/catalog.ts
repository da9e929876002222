// The connected workspace's catalog, read once and shared: the plan preview and the inspector's
// reference pickers plan and bind against the same copy. Reads happen on demand — "Refresh", or a
// picker opening for a kind of item not read yet — never one request per keystroke; edits to the
// pack re-plan and re-mark against the copy. Marks are core's markReferences (bindReferences, as
// `setup-pack plan` binds), never a rule restated here.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import {
  candidatesOf,
  COLLECTION_OF_REFERENCE,
  markReferences,
  requiredCollections,
  type InstallLedger,
  type Pack,
  type ReferenceMark,
  type ReferenceType,
  type WorkspaceCollection,
  type WorkspaceObject,
  type WorkspaceSnapshot,
} from '@setup-pack/core';
import {
  describeWait,
  fetchSnapshot,
  ledgerIn,
  listLedgers,
  otherLedgers,
  otherLedgersIn,
  WorkspaceApiError,
  WorkspaceClient,
  type WaitEvent,
} from '@setup-pack/installer';
import type { Connected } from './connection.js';

export interface WorkspaceCatalog {
  /** The pack whose install ledger was read: the copy serves only a pack of this id. */
  packId: string | undefined;
  ledger: InstallLedger | null;
  snapshot: WorkspaceSnapshot;
  collections: ReadonlySet<WorkspaceCollection>;
  /**
   * The ledgers of the workspace's other installed packs (core's plan option `others`): what they
   * hold of this pack's items prune keeps. Read, as the installer reads them, only to plan with
   * prune a pack that is installed; undefined until then.
   */
  others?: readonly InstallLedger[];
  readAt: Date;
}

export interface WorkspaceState {
  connected: Connected;
  /** What was read for the pack being edited (its packId); undefined when nothing was, or only for another pack. */
  catalog?: WorkspaceCatalog;
  /** Whether the workspace was read for another pack (another packId): read it again for this one. */
  stale: boolean;
  busy: boolean;
  /** Why the last read failed, in words (empty when it did not). */
  status: string;
  /** The last read found no server answering (stopped, or this origin no longer allowed): nothing is offered that writes. */
  unreachable: boolean;
  /**
   * While a client of this workspace waits a second or more (a spent rate-limit window, a 429,
   * a retry), that wait in the installer's words (describeWait, as the CLI says it); undefined
   * otherwise. An install paced by the limit would else look hung for up to a minute.
   */
  waiting?: string;
  /**
   * Whether to plan and install with prune (`setup-pack plan --prune`: remove the items gone from
   * this release, when unedited). The preview and Install both take it from here, so Install does
   * what the preview shows.
   */
  prune: boolean;
  /** Turns prune on or off; on, reads the other installed packs' ledgers if they were not read yet. */
  setPrune(on: boolean): void;
  /** The plan options the preview plans with and Install installs with (core's PlanOptions). */
  planOptions: { prune: boolean; others?: readonly InstallLedger[] };
  /** Reads the ledger and every collection the pack needs (and those read before) again. */
  refresh: () => Promise<void>;
  /** Reads what a reference type's picker lists, when it was not read yet. */
  ensureType(type: ReferenceType): Promise<void>;
  /** The workspace's objects of a reference type; undefined when not read yet. */
  objectsOf(type: ReferenceType): WorkspaceObject[] | undefined;
  /** Each reference of the pack as `setup-pack plan` would bind it (by bindingKey), once read. */
  marks: ReadonlyMap<string, ReferenceMark> | undefined;
  client(): WorkspaceClient;
}

export const WorkspaceContext = createContext<WorkspaceState | undefined>(undefined);

export const useWorkspace = () => useContext(WorkspaceContext);

/** A failure's HTTP status: 0 when no server answered, -1 when it is not the API's. */
const failureStatus = (e: unknown) => (e instanceof WorkspaceApiError ? e.status : e instanceof TypeError ? 0 : -1);

/** A failed read in words: server down or this origin not allowed, a refused key, the rate limit. */
export function readFailure(connected: Connected, e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const status = failureStatus(e);
  if (status === 0)
    return `Cannot reach ${connected.baseUrl}: the server stopped, or it no longer allows this editor's origin (${location.origin}).`;
  if (status === 401 || status === 403) return `The workspace refused the API key (${message}). Connect again with a key that may read it.`;
  if (status === 429) return `The workspace is rate limiting this key (${message}); try again in a minute.`;
  return `Could not read the workspace: ${message}`;
}

/**
 * The workspace's state for the pack being edited, in steps: the copy that serves this pack, the
 * client (and its waits), every read's progress, prune, the reads themselves and the marks.
 */
export function useWorkspaceState(connected: Connected | undefined, pack: Pack): WorkspaceState | undefined {
  const { catalog, stale, catalogRef, keep } = useCatalogFor(connected, pack);
  const packRef = useRef(pack);
  packRef.current = pack;
  const { waiting, onWait } = useWaiting();
  const client = useCallback(
    () => new WorkspaceClient({ baseUrl: connected!.baseUrl, apiKey: connected!.apiKey, onWait }),
    [connected, onWait],
  );
  const { busy, status, unreachable, reading } = useReading(connected);
  const { prune, pruneRef, setPrune, planOptions } = usePrune(catalog, catalogRef, keep, reading, client);
  const read = useCallback(
    (extra: WorkspaceCollection[], again: boolean) =>
      reading(() =>
        readCatalog(
          client(),
          packRef.current,
          extra,
          again ? undefined : catalogRef.current,
          { read: () => catalogRef.current?.collections, prune: () => pruneRef.current },
          keep,
        ),
      ),
    [reading, client, catalogRef, pruneRef, keep],
  );
  const marks = useMarks(pack, catalog);
  return useMemo(() => {
    if (!connected) return undefined;
    return {
      connected,
      catalog,
      stale,
      busy,
      status,
      unreachable,
      waiting,
      marks,
      client,
      prune,
      setPrune,
      planOptions,
      refresh: () => read([], true),
      ensureType: async (type: ReferenceType) => {
        const collection = COLLECTION_OF_REFERENCE[type];
        if (catalogRef.current?.collections.has(collection)) return;
        await read([collection], false);
      },
      objectsOf: (type: ReferenceType) =>
        catalog?.collections.has(COLLECTION_OF_REFERENCE[type]) ? candidatesOf(type, catalog.snapshot) : undefined,
    };
  }, [connected, catalog, stale, busy, status, unreachable, waiting, marks, client, read, prune, setPrune, planOptions, catalogRef]);
}

type Keep = (next: WorkspaceCatalog) => void;

/**
 * The copy read for this pack. The install ledger is one pack's (by packId), and what the pack
 * needed decided which collections were read: a copy read for another pack (another pack opened,
 * the packId edited) is not planned, marked or opened against. Going back to that pack finds it
 * again. `catalogRef` is the copy as the latest read left it, before React renders it; `keep`
 * stores a new one in both.
 */
function useCatalogFor(connected: Connected | undefined, pack: Pack) {
  const [stored, setCatalog] = useState<WorkspaceCatalog>();
  const connectedRef = useRef(connected);
  const switched = connectedRef.current !== connected;
  if (switched) {
    // Another workspace (or none): nothing read from the last one applies.
    connectedRef.current = connected;
    if (stored) setCatalog(undefined);
  }
  const catalog = !switched && stored?.packId === pack.packId ? stored : undefined;
  const stale = !switched && !!stored && !catalog;
  const catalogRef = useRef(catalog);
  catalogRef.current = catalog;
  const keep = useCallback<Keep>((next) => {
    catalogRef.current = next;
    setCatalog(next);
  }, []);
  return { catalog, stale, catalogRef, keep };
}

/** While a client waits a second or more, that wait in words, until it ends (WorkspaceState.waiting). */
function useWaiting() {
  const [waiting, setWaiting] = useState<string>();
  const waitEnds = useRef<ReturnType<typeof setTimeout>>(undefined);
  const onWait = useCallback((w: WaitEvent) => {
    const words = describeWait(w);
    setWaiting(`${words[0].toUpperCase()}${words.slice(1)}…`);
    clearTimeout(waitEnds.current);
    waitEnds.current = setTimeout(() => setWaiting(undefined), w.ms);
  }, []);
  useEffect(() => () => clearTimeout(waitEnds.current), []);
  return { waiting, onWait };
}

/**
 * Every read of the workspace: busy while it runs, the last failure cleared before and said
 * after (readFailure), busy cleared however it ends.
 */
function useReading(connected: Connected | undefined) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const [unreachable, setUnreachable] = useState(false);
  const reading = useCallback(
    async (fn: () => Promise<void>) => {
      if (!connected) return;
      setBusy(true);
      setStatus('');
      try {
        await fn();
        setUnreachable(false);
      } catch (e) {
        setStatus(readFailure(connected, e));
        setUnreachable(failureStatus(e) === 0);
      } finally {
        setBusy(false);
      }
    },
    [connected],
  );
  return { busy, status, unreachable, reading };
}

/**
 * Reads the workspace into a copy and keeps it. A whole read (the first, or Refresh: no `before`):
 * the ledger, what the pack needs and whatever was read before, anew. Otherwise only the
 * collections not read yet, added to the copy. `latest` is asked as the read goes: what was read
 * before, and whether prune is on, may change while it waits.
 */
async function readCatalog(
  c: WorkspaceClient,
  p: Pack,
  extra: WorkspaceCollection[],
  before: WorkspaceCatalog | undefined,
  latest: { read: () => ReadonlySet<WorkspaceCollection> | undefined; prune: () => boolean },
  keep: Keep,
): Promise<void> {
  // The ledger list (one read, 200 whatever is installed) gives the pack's ledger and, for prune, the others'.
  const listed = before ? undefined : await listLedgers(c);
  const ledger = before ? before.ledger : ledgerIn(listed!, p.packId);
  const wanted = before
    ? extra.filter((x) => !before.collections.has(x))
    : [...new Set<WorkspaceCollection>([...requiredCollections(p, ledger), ...extra, ...(latest.read() ?? [])])];
  const fresh = await fetchSnapshot(c, wanted, ledger?.state === 'in_progress' ? p.packId : undefined);
  const snapshot: WorkspaceSnapshot = before
    ? { ...before.snapshot, collections: { ...before.snapshot.collections, ...fresh.collections } }
    : fresh;
  // With prune, what the other installed packs hold stays: their ledgers, as the installer reads them.
  const others = before ? before.others : latest.prune() && ledger ? otherLedgersIn(listed!, p.packId) : undefined;
  keep({
    packId: p.packId,
    ledger,
    snapshot,
    collections: new Set([...(before?.collections ?? []), ...wanted]),
    others,
    readAt: new Date(),
  });
}

/** Prune, on or off; turned on after the workspace was read, it reads the other packs' ledgers (once). */
function usePrune(
  catalog: WorkspaceCatalog | undefined,
  catalogRef: RefObject<WorkspaceCatalog | undefined>,
  keep: Keep,
  reading: (fn: () => Promise<void>) => Promise<void>,
  client: () => WorkspaceClient,
) {
  const [prune, setPruneState] = useState(false);
  const pruneRef = useRef(prune);
  pruneRef.current = prune;
  const readOthers = useCallback(async () => {
    const before = catalogRef.current;
    if (!before?.ledger || before.others) return;
    const packId = before.ledger.packId;
    await reading(async () => {
      const next = { ...before, others: await otherLedgers(client(), packId) };
      if (catalogRef.current === before) keep(next);
    });
  }, [reading, client, catalogRef, keep]);
  const setPrune = useCallback(
    (on: boolean) => {
      pruneRef.current = on;
      setPruneState(on);
      if (on) void readOthers();
    },
    [readOthers],
  );
  const planOptions = useMemo(() => ({ prune, others: prune ? catalog?.others : undefined }), [prune, catalog]);
  return { prune, pruneRef, setPrune, planOptions };
}

/** Each reference of the pack as `setup-pack plan` would bind it, against the copy. */
function useMarks(pack: Pack, catalog: WorkspaceCatalog | undefined) {
  return useMemo(() => {
    if (!catalog) return undefined;
    try {
      return markReferences(pack, catalog.ledger, catalog.snapshot);
    } catch {
      return undefined; // a pack too broken to bind; its findings say why
    }
  }, [pack, catalog]);
}
