// Export: read what the pure exporter needs (the ledger, the collections, the media bytes) through
// the same paced, retrying client as installs, then call core's exportPack. Browser-safe (no
// node: imports), so the editor can open a workspace with the same code.
import {
  COLLECTION_PATH,
  exportCollections,
  exportPack,
  mediaToDownload,
  referenceCollections,
  validatePack,
  type Diagnostic,
  type ExportNote,
  type Pack,
  type WorkspaceCollection,
  type WorkspaceSnapshot,
} from '@setup-pack/core';
import { WorkspaceApiError, type WorkspaceClient } from './client.js';
import { fetchSnapshot, readLedger } from './workspace.js';

export interface ExportProgress {
  /** What is being read: a collection, "ledger" or "media". */
  phase: string;
  done: number;
  total: number;
}

export interface WorkspaceExportOptions {
  /** Export this installed pack (its ledger's items). */
  packId?: string;
  /** Export everything the workspace holds (a snapshot with a fresh packId). */
  all?: boolean;
  /** packId of a snapshot (default: a random UUID). */
  newPackId?: string;
  version?: string;
  /** Name of a snapshot (default: "<workspace name> snapshot"). */
  name?: string;
  /** exportedAt to stamp (default: now). */
  exportedAt?: string;
  onProgress?: (e: ExportProgress) => void;
}

export interface WorkspaceExportResult {
  pack: Pack;
  notes: ExportNote[];
  /** Validation findings of the exported pack (errors make it unusable; the CLI refuses to write it). */
  diagnostics: Diagnostic[];
  /** Requests the export made, and the lower bound: one per collection page, media file, ledger and identity read. */
  requests: number;
  minimumRequests: number;
}

const pages = (n: number) => Math.max(1, Math.ceil(n / 100));

/** Reads the workspace and exports one installed pack (`packId`) or everything (`all`). */
export async function exportWorkspace(client: WorkspaceClient, options: WorkspaceExportOptions): Promise<WorkspaceExportResult> {
  if (!options.packId === !options.all) throw new Error('exportWorkspace: give exactly one of packId and all');
  const before = client.stats.requests;
  let minimum = 0;
  const progress = (phase: string, done: number, total: number) => options.onProgress?.({ phase, done, total });

  let ledger = null;
  if (options.packId) {
    progress('ledger', 0, 1);
    const record = await readLedger(client, options.packId);
    minimum++;
    if (!record)
      throw new WorkspaceApiError(
        404,
        'invalid_request_error',
        `Pack ${options.packId} is not installed in this workspace (no install ledger)`,
        'pack_id',
      );
    ledger = record.ledger;
  }
  let name = options.name;
  if (options.all && name === undefined) {
    const me = await client.get<{ workspace?: { name?: string } }>('/v1/me');
    minimum++;
    name = `${typeof me?.workspace?.name === 'string' ? me.workspace.name : 'Workspace'} snapshot`;
  }

  const snapshot: WorkspaceSnapshot = { collections: {} };
  const read = async (collections: WorkspaceCollection[]) => {
    for (const [i, c] of collections.entries()) {
      progress(c, i, collections.length);
      Object.assign(snapshot.collections, (await fetchSnapshot(client, [c])).collections);
      minimum += c === 'brand' ? 1 : pages(snapshot.collections[c]!.length);
    }
  };
  await read(exportCollections(ledger));
  await read(referenceCollections(snapshot));

  const mediaData: Record<string, string> = {};
  const ids = mediaToDownload(snapshot, ledger);
  for (const [i, id] of ids.entries()) {
    progress('media', i, ids.length);
    minimum++;
    try {
      const path = `${COLLECTION_PATH.media}/${encodeURIComponent(id)}/content`;
      const content = await client.get<{ data: string }>(path);
      if (typeof content?.data !== 'string') throw client.malformed('GET', path, 'a media file\'s content ({"data": "<base64>"})');
      mediaData[id] = content.data;
    } catch (e) {
      // Deleted since the list was read: exported without it (core notes what is left out).
      if (!(e instanceof WorkspaceApiError && e.isNotFound)) throw e;
    }
  }
  progress('media', ids.length, ids.length);

  const { pack, notes } = exportPack(
    { snapshot, mediaData, ledger },
    {
      packId: options.all ? (options.newPackId ?? globalThis.crypto.randomUUID()) : undefined,
      version: options.version,
      name,
      exportedAt: options.exportedAt ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    },
  );
  const diagnostics = validatePack(pack).diagnostics;
  return { pack, notes, diagnostics, requests: client.stats.requests - before, minimumRequests: minimum };
}
