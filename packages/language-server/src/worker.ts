// The validation worker: analyses one pack text at a time off the main thread, so the server keeps
// answering hovers and jumps while a large pack validates. The main thread writes each document's
// latest version into a shared array (its slot); a job whose version is no longer the latest is
// dropped at the next check.
import { parentPort, workerData } from 'node:worker_threads';
import { portableHasher, type Base64Hasher } from '@setup-pack/core';
import { analyseFolder, analysePack, type AnalysisSink } from './analysis.js';
import type { SourceFolderSupport } from './folder-support.js';
import type { PackModel } from './model.js';
import { PART_SIZE, type AnalyseJob, type ModelList, type WorkerData, type WorkerReply } from './protocol.js';

const data = workerData as WorkerData;
const latest = new Int32Array(data.latest);
const hash: Base64Hasher = data.hasher
  ? ((await import(data.hasher.module)) as Record<string, Base64Hasher>)[data.hasher.name]
  : portableHasher;
const port = parentPort!;
const reply = (r: WorkerReply) => port.postMessage(r);

const folders = data.folders
  ? ((await import(data.folders)) as { sourceFolderSupport: SourceFolderSupport }).sourceFolderSupport
  : undefined;

port.on('message', (job: AnalyseJob) => void run(job));

async function run(job: AnalyseJob): Promise<void> {
  const { uri, version } = job;
  const outdated = () => Atomics.load(latest, job.slot) !== version;
  if (outdated()) return reply({ type: 'done', uri, version, dropped: true });
  const sink: AnalysisSink = {
    diagnostics: (diagnostics) =>
      slices(diagnostics, (part, last) => reply({ type: 'diagnostics', uri, version, diagnostics: part, last })),
    folderDiagnostics: (files) => reply({ type: 'folder-diagnostics', uri, version, files }),
    ...(job.findingsOnly ? {} : { model: (model: PackModel) => sendModel(uri, version, model) }),
    outdated,
  };
  let done = false;
  try {
    if (job.kind === 'pack') done = analysePack(job.text, uri, version, hash, sink);
    else if (folders) done = await analyseFolder(folders, job.root, new Map(job.overlay), version, hash, sink);
  } finally {
    reply({ type: 'done', uri, version, dropped: !done });
  }
}
reply({ type: 'ready' });

function slices<T>(list: readonly T[], send: (part: T[], last: boolean) => void): void {
  if (list.length === 0) send([], true);
  for (let i = 0; i < list.length; i += PART_SIZE) send(list.slice(i, i + PART_SIZE), i + PART_SIZE >= list.length);
}

const LISTS: readonly ModelList[] = ['items', 'refs', 'urls', 'blocks', 'automations', 'fixes'];

function sendModel(uri: string, version: number, model: PackModel): void {
  if (model.files.length) reply({ type: 'files', uri, version, files: model.files });
  port.postMessage({ type: 'hits', uri, version, hits: model.hits } satisfies WorkerReply, [model.hits.buffer as ArrayBuffer]);
  LISTS.forEach((list, k) => {
    const entries: unknown[] = model[list];
    slices(entries, (part, last) => reply({ type: 'model', uri, version, list, entries: part, last: last && k === LISTS.length - 1 }));
  });
}
