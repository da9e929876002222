// Writes one part's benchmark results into its own marked section of docs/benchmarks.md, so
// every package's `npm run bench` can record results without clobbering the others'.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'benchmarks.md');

export function machineLine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  // The load average says how shared the machine was: absolute numbers move with it, ratios much less.
  const load = os.loadavg().map((l) => l.toFixed(1)).join(' / ');
  return `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}; load average ${load} (1/5/15 min) at the start; ran ${new Date().toISOString()}`;
}

/** Replaces (or appends) the section `name` of docs/benchmarks.md with `markdown`. */
export function writeSection(name, markdown) {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n\nWritten by `npm run bench`. Each part records its own section; ratios are measured side by side in one run because these machines are shared and noisy.\n';
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  text = i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, text);
}
