// A pack named on the command line by `plan`, `install` and `diff`: a pack file, or a source folder
// built in memory as `build` and `validate` build one (nothing is written).
import { stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { inLayout } from '../source/layout.js';
import type { FileReport } from '../report/model.js';
import type { CommandContext } from './context.js';
import { displayPath, sourceFolderOf } from './files.js';
import { UsageError } from './errors.js';
import { readPackFile } from './packfile.js';

/**
 * `value`: the pack as read or built. A folder gives one only when it builds into a valid pack
 * (compileFolder validates it); a pack file is not validated here. Not ok: `reports` say why
 * (`unreadable`: the path could not be read at all; else the file is not JSON, or the folder does
 * not build or its pack is not valid).
 */
export type PackInput =
  | { ok: true; value: unknown; folder: boolean; reports: FileReport[] }
  | { ok: false; reports: FileReport[]; unreadable: boolean; folder: boolean };

/** Reads `abs` (shown as `shown`): a folder is built with `exportedAt` (default: build's own choice, SOURCE_DATE_EPOCH or now). */
export async function readPackInput(ctx: CommandContext, abs: string, shown: string, stampOf?: string): Promise<PackInput> {
  const st = await stat(abs).catch(() => undefined);
  if (st?.isFile()) {
    // A source folder's file (its manifest.json, an automation's file) is no pack: read as one, its
    // diff or plan would say every item of the folder is added. validate reads the folder for it;
    // here the user is asked to name the folder, which is what builds.
    // A pack built beside the layout (`build p -o p/p.json`) is a pack: only the layout's own files are refused.
    const root = await sourceFolderOf(ctx.cwd)(abs);
    if (root !== undefined && inLayout(relative(root, abs).split(sep).join('/'))) {
      const folder = displayPath(root, ctx.cwd);
      throw new UsageError(
        `'${shown}' is a file of the pack source folder '${folder}', not a pack; name the folder to build it ('${folder}')`,
      );
    }
  }
  if (!st?.isDirectory()) {
    const r = await readPackFile(abs, shown);
    return r.ok
      ? { ok: true, value: r.value, folder: false, reports: [] }
      : { ok: false, reports: [r.report], unreadable: r.unreadable, folder: false };
  }
  const [{ acceptsProperty }, { readTree }, { compileFolder }] = await Promise.all([
    import('@setup-pack/core'),
    import('../source/tree.js'),
    import('../source/compile.js'),
  ]);
  const stamp = stampOf ?? exportedAt(undefined, ctx.env, (s) => acceptsProperty('pack', 'exportedAt', s));
  const result = await compileFolder(await readTree(abs), { exportedAt: stamp, dir: abs, display: (a) => displayPath(a, ctx.cwd) });
  return result.pack
    ? { ok: true, value: result.pack, folder: true, reports: result.reports }
    : { ok: false, reports: result.reports, unreadable: false, folder: true };
}

/**
 * The exportedAt build sets: --exported-at, else SOURCE_DATE_EPOCH, else the current time. Each is
 * held to the pack schema's own rule for exportedAt (core's acceptsProperty: ajv-formats' date-time,
 * so no 30 February, no 24:00, no year past 9999), and one it refuses is a usage error naming where
 * it came from, rather than a schema/format finding in manifest.json:1:1 that the folder did not
 * cause. SOURCE_DATE_EPOCH past what a Date holds (99999999999999) is refused here too.
 */
export function exportedAt(flag: unknown, env: NodeJS.ProcessEnv, accepts: (stamp: string) => boolean): string {
  if (typeof flag === 'string') {
    if (!accepts(flag)) throw new UsageError(`--exported-at needs an RFC 3339 timestamp such as 2026-01-31T12:00:00Z, not '${flag}'`);
    return flag;
  }
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== '') {
    if (!/^\d+$/.test(epoch)) throw new UsageError(`SOURCE_DATE_EPOCH must be whole seconds since 1970, not '${epoch}'`);
    const date = new Date(Number(epoch) * 1000);
    const stamp = Number.isNaN(date.getTime()) ? undefined : date.toISOString().replace('.000Z', 'Z');
    if (stamp === undefined || !accepts(stamp))
      throw new UsageError(`SOURCE_DATE_EPOCH=${epoch} is after 9999, the last year an RFC 3339 timestamp can hold`);
    return stamp;
  }
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}
