// Builds the editor into the directory given, unless a build is already there: run under flock by
// harness.mjs, so one test run builds once. The build goes to a side directory renamed into place,
// so a build that fails part-way leaves nothing a later file would take for a build.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { buildEditor } from './harness.mjs';

const outDir = process.argv[2];
if (!existsSync(outDir)) {
  const part = `${outDir}.part`;
  rmSync(part, { recursive: true, force: true });
  await buildEditor(part);
  renameSync(part, outDir);
}
