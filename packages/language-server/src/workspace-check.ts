// "Validate workspace": every pack file and source folder under the workspace's folders, validated
// as `setup-pack validate` would and published as diagnostics, open or not, with a summary for the
// client to show. The work runs in a validation worker of its own (the same worker module), so the
// documents being edited keep their worker and their pace; it is stopped when the check is done.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { looksLikePack } from './detect.js';
import type { SourceFolderSupport } from './folder-support.js';
import type { AnalyseJob, HasherModule } from './protocol.js';
import { Scheduler } from './scheduler.js';

/** Folders never searched: dependencies, version control, and other hidden folders. */
const SKIPPED = new Set(['node_modules', 'dist', 'out', 'build', 'coverage']);

export interface CheckedFile {
  uri: string;
  errors: number;
  warnings: number;
  infos: number;
}

export interface WorkspaceSummary {
  /** Pack files and source folders found and validated. */
  packs: number;
  folders: number;
  errors: number;
  warnings: number;
  infos: number;
  /** Each file with findings. */
  files: CheckedFile[];
  /** Packs or folders whose validation failed (the worker stopped on them), by URI. */
  failed: string[];
}

export interface CheckContext {
  worker: URL;
  modules: { hasher?: HasherModule; folders?: string };
  folders?: SourceFolderSupport;
  /** Whether the editor has the pack file or source folder open: its own findings are newer. */
  isOpen(key: string): boolean;
  publish(uri: string, diagnostics: LspDiagnostic[]): void;
  log(message: string): void;
}

/** Every `.json` file under the roots, skipping dependencies and hidden folders. */
async function jsonFiles(dir: string, out: string[] = []): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const path = join(dir, e.name);
    if (e.isDirectory() && !SKIPPED.has(e.name)) await jsonFiles(path, out);
    else if (e.isFile() && e.name.toLowerCase().endsWith('.json')) out.push(path);
  }
  return out;
}

/** The jobs: each pack file with its text, each source folder once. */
async function findJobs(roots: readonly string[], ctx: CheckContext): Promise<{ packs: AnalyseJob[]; folders: AnalyseJob[] }> {
  const packs: AnalyseJob[] = [];
  const folders = new Map<string, AnalyseJob>();
  for (const root of roots) {
    for (const file of await jsonFiles(root)) {
      const folder = ctx.folders ? await ctx.folders.folderOf(file) : undefined;
      if (folder !== undefined) {
        const uri = pathToFileURL(folder).href;
        if (!folders.has(uri))
          folders.set(uri, { kind: 'folder', uri, root: folder, version: 1, overlay: [], slot: -1, findingsOnly: true });
        continue;
      }
      const text = await readFile(file, 'utf8').catch(() => undefined);
      if (text !== undefined && looksLikePack(text))
        packs.push({
          kind: 'pack',
          uri: pathToFileURL(file).href,
          version: 1,
          text: text.replace(/^\uFEFF/, ''),
          slot: -1,
          findingsOnly: true,
        });
    }
  }
  return { packs, folders: [...folders.values()] };
}

/** A file's findings counted by severity. */
export const countFindings = (uri: string, diagnostics: LspDiagnostic[]): CheckedFile => ({
  uri,
  errors: diagnostics.filter((d) => d.severity === 1).length,
  warnings: diagnostics.filter((d) => d.severity === 2).length,
  infos: diagnostics.filter((d) => d.severity === 3).length,
});

/** Runs the jobs one at a time in a worker of their own: each job's findings, by file. */
function runJobs(jobs: AnalyseJob[], ctx: CheckContext): Promise<{ results: Map<string, Map<string, LspDiagnostic[]>>; failed: string[] }> {
  const results = new Map<string, Map<string, LspDiagnostic[]>>(jobs.map((j) => [j.uri, new Map()]));
  const failed: string[] = [];
  let left = jobs.length;
  return new Promise((resolve) => {
    const finish = () => {
      if (--left > 0) return;
      void scheduler.close();
      resolve({ results, failed });
    };
    const scheduler = new Scheduler(ctx.worker, ctx.modules, {
      reply: (r) => {
        const byFile = results.get(r.uri);
        if (!byFile) return;
        if (r.type === 'diagnostics') byFile.set(r.uri, [...(byFile.get(r.uri) ?? []), ...r.diagnostics]);
        else if (r.type === 'folder-diagnostics') for (const f of r.files) byFile.set(f.uri, f.diagnostics);
        else if (r.type === 'done') finish();
      },
      failed: (error, job) => {
        if (!job) {
          // The worker did not start: nothing more will run.
          ctx.log(`setup-pack: Validate workspace could not start its worker: ${error.message}`);
          failed.push(...jobs.filter((j) => results.get(j.uri)!.size === 0).map((j) => j.uri));
          left = 1;
          return finish();
        }
        ctx.log(`setup-pack: Validate workspace could not validate ${job.uri}: ${error.message}`);
        failed.push(job.uri);
        finish();
      },
    });
    if (jobs.length === 0) return resolve({ results, failed });
    for (const job of jobs) scheduler.schedule({ ...job, slot: scheduler.openSlot() });
  });
}

/** Validates the workspace under `roots` (folder paths) and publishes what it finds. */
export async function checkWorkspace(roots: readonly string[], ctx: CheckContext): Promise<WorkspaceSummary> {
  const found = await findJobs(roots, ctx);
  const jobs = [...found.packs, ...found.folders].filter((j) => !ctx.isOpen(j.uri));
  const { results, failed } = await runJobs(jobs, ctx);
  const files: CheckedFile[] = [];
  for (const [key, byFile] of results) {
    if (failed.includes(key)) continue;
    // A pack without findings is published too (an empty list): it clears what an earlier check said.
    for (const [uri, diagnostics] of byFile) {
      ctx.publish(uri, diagnostics);
      if (diagnostics.length) files.push(countFindings(uri, diagnostics));
    }
  }
  files.sort((a, b) => (a.uri < b.uri ? -1 : 1));
  const sum = (k: 'errors' | 'warnings' | 'infos') => files.reduce((n, f) => n + f[k], 0);
  return {
    packs: found.packs.length,
    folders: found.folders.length,
    errors: sum('errors'),
    warnings: sum('warnings'),
    infos: sum('infos'),
    files,
    failed,
  };
}

/** The folders a client names (workspace folders' or a root's URIs) as paths; other schemes are skipped. */
export const rootPaths = (uris: readonly string[]): string[] => uris.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
