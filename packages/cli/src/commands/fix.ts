// setup-pack fix: the mechanical repairs: asset sha256/byteSize from data, won/lost probabilities.
import { writeFile } from 'node:fs/promises';
import { count, fixedStageProbability, plural, printable, type Base64Hasher } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { forEachPackFile, packFilesToRewrite, reportUnreadable, rewriteExitCode } from '../lib/rewrite.js';

export const spec: CommandSpec = {
  name: 'fix',
  summary: 'Recompute asset sha256/byteSize from their data and set won/lost stage probabilities to 100/0.',
  usage: 'fix [--dry-run] <files, directories or globs...>',
  description: 'Writes the fixed pack in the canonical form (as fmt). Assets whose data is not valid base64 are left alone (validate reports them).',
  positionals: [1, Infinity],
  options: {
    'dry-run': { type: 'boolean', short: 'n', description: 'Print what would change; write nothing (exit 1 if anything would).' },
  },
  examples: [
    ['setup-pack fix pack.json', 'Repair a pack in place'],
    ['setup-pack fix --dry-run pack.json', 'See what fix would change'],
  ],
};

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Applies the fixes in place; returns one line per change. */
export function fixPack(pack: unknown, hash: Base64Hasher): string[] {
  const changes: string[] = [];
  if (!isObj(pack)) return changes;
  if (Array.isArray(pack.assets)) {
    pack.assets.forEach((a, i) => {
      if (!isObj(a) || typeof a.data !== 'string') return;
      const hashed = hash(a.data); // undefined for data that is not strict base64
      if (!hashed) return;
      const { byteSize, sha256 } = hashed;
      const name = typeof a.key === 'string' ? `asset "${a.key}"` : `assets[${i}]`;
      if (a.sha256 !== sha256) changes.push(`${name}: sha256 ${typeof a.sha256 === 'string' ? a.sha256.slice(0, 12) + '…' : String(a.sha256)} → ${sha256.slice(0, 12)}…`);
      if (a.byteSize !== byteSize) changes.push(`${name}: byteSize ${String(a.byteSize)} → ${byteSize}`);
      a.sha256 = sha256;
      a.byteSize = byteSize;
    });
  }
  if (Array.isArray(pack.pipelines)) {
    for (const p of pack.pipelines) {
      if (!isObj(p) || !Array.isArray(p.stages)) continue;
      for (const s of p.stages) {
        if (!isObj(s) || typeof s.probability !== 'number') continue;
        const want = fixedStageProbability(s.stageType);
        if (want !== undefined && s.probability !== want) {
          changes.push(`pipeline "${String(p.key)}" stage "${String(s.key)}": probability ${s.probability} → ${want}`);
          s.probability = want;
        }
      }
    }
  }
  return changes;
}

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const files = await packFilesToRewrite(ctx, args.positionals);
  const [{ formatPack, RULE_METADATA }, { nodeHasher }] = await Promise.all([import('@setup-pack/core'), import('../lib/hasher.js')]);
  const dry = Boolean(args.values['dry-run']);
  let touched = 0;
  const failed = await forEachPackFile(ctx, files, async ({ abs, path, value }) => {
    const changes = fixPack(value, nodeHasher);
    for (const ch of changes) ctx.stdout.write(`${path}: ${printable(ch)}\n`);
    if (!changes.length) return;
    touched++;
    if (!dry) await writeFile(abs, formatPack(value));
  });
  reportUnreadable(ctx, failed, RULE_METADATA);
  ctx.stdout.write(touched ? `${dry ? 'would fix' : 'fixed'} ${count(touched)} of ${plural(files.length, 'file')}\n` : `nothing to fix in ${plural(files.length, 'file')}\n`);
  return rewriteExitCode(failed, dry && touched > 0);
}
