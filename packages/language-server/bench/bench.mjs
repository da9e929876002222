// `npm run bench -w packages/language-server`: the language server as an editor drives it, over
// stdio with the real `setup-pack lsp --stdio` process. Keystrokes in the demo pack (each one's
// findings after the pause); the pack at every limit (findings after an edit against the CLI's
// whole-process validate of the same text; hover and definition while that validation runs); and
// the server's memory holding the limit pack open. Records its section of docs/benchmarks.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { machineLine, writeSection } from '../../../scripts/bench-report.mjs';
import { makeLimitPack } from '../../core/bench/limit-pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../..');
const bin = join(root, 'packages/cli/bin/setup-pack.js');
const DEBOUNCE = 150;
const KEYSTROKES = Number(process.env.BENCH_KEYSTROKES ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const dir = mkdtempSync(join(tmpdir(), 'setup-pack-lsp-bench-'));

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
const median = (xs) => quantile(xs, 0.5);
const ms = (x) => `${x.toFixed(0)} ms`;

/**
 * The server process and a JSON-RPC connection to it (BENCH_NODE_ARGS: node flags for it, such as
 * `--cpu-prof --cpu-prof-dir=prof` to see where its threads spend their time); `published(uri, version)` resolves at that version's findings. */
async function startServer() {
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []), bin, 'lsp', '--stdio'],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const waiting = new Map();
  connection.onNotification('textDocument/publishDiagnostics', (p) => {
    const key = `${p.uri}@${p.version}`;
    waiting.get(key)?.(p.diagnostics);
    waiting.delete(key);
  });
  connection.listen();
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
    initializationOptions: { debounceMs: DEBOUNCE },
  });
  await connection.sendNotification('initialized', {});
  const published = (uri, version) => new Promise((resolve) => waiting.set(`${uri}@${version}`, resolve));
  const stop = async () => {
    await connection.sendRequest('shutdown', null);
    await connection.sendNotification('exit');
    await new Promise((resolve) => child.once('exit', resolve));
    connection.dispose();
  };
  return { child, connection, published, stop };
}

/** An edit that keeps the text valid: one character into (or out of) a name's string. */
function keystroke(text, needle, k) {
  const at = text.indexOf(needle) + needle.length - 1;
  const lines = text.slice(0, at).split('\n');
  const position = { line: lines.length - 1, character: lines[lines.length - 1].length };
  return k % 2 === 0
    ? { range: { start: position, end: position }, text: 'x' }
    : { range: { start: position, end: { line: position.line, character: position.character + 1 } }, text: '' };
}

async function demoKeystrokes() {
  const text = readFileSync(join(root, 'fixtures/valid/buyer-lead-starter.json'), 'utf8');
  const server = await startServer();
  const uri = 'file:///demo.json';
  const first = server.published(uri, 1);
  await server.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'json', version: 1, text } });
  await first;
  const times = [];
  for (let k = 0; k < KEYSTROKES; k++) {
    const version = k + 2;
    const done = server.published(uri, version);
    const sent = performance.now();
    await server.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [keystroke(text, '"name": "Welcome text', k)],
    });
    await done;
    times.push(performance.now() - sent - DEBOUNCE);
  }
  await server.stop();
  return times;
}

/** `setup-pack validate` on the file, as a fresh process: wall time of each run. */
function cliValidate(file) {
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    const run = spawnSync(process.execPath, [bin, 'validate', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    times.push(performance.now() - t);
    if (run.status !== 0) throw new Error(`the limit pack does not validate: ${run.stderr}`);
  }
  return times;
}

/** Hovers and jumps, one every 10 ms, while an edit of the limit pack is validated: each one's time. */
async function requestsWhileValidating(server, uri, position, done) {
  const hover = [];
  const definition = [];
  let over = false;
  done.then(() => (over = true));
  while (!over) {
    let t = performance.now();
    await server.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position });
    hover.push(performance.now() - t);
    t = performance.now();
    await server.connection.sendRequest('textDocument/definition', { textDocument: { uri }, position });
    definition.push(performance.now() - t);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { hover, definition };
}

function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s*(\\d+)`).exec(status)[1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function limitPack() {
  const text = JSON.stringify(makeLimitPack(), null, 2);
  const file = join(dir, 'limits.json');
  writeFileSync(file, text);
  const cli = cliValidate(file);
  const server = await startServer();
  const uri = 'file:///limits.json';
  let opened = performance.now();
  const first = server.published(uri, 1);
  await server.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'json', version: 1, text } });
  await first;
  opened = performance.now() - opened;
  // A hover and a jump from the last automation's first template_id, far from the edits.
  const use = text.lastIndexOf('"template_id": "tpl-');
  const before = text.slice(0, use).split('\n');
  const position = { line: before.length - 1, character: before[before.length - 1].length + 20 };
  const probe = await server.connection.sendRequest('textDocument/definition', { textDocument: { uri }, position });
  if (!probe) throw new Error('no definition for the probe position');
  const diagnostics = [];
  const hover = [];
  const definition = [];
  for (let r = 0; r < ROUNDS; r++) {
    const version = r + 2;
    const done = server.published(uri, version);
    const sent = performance.now();
    await server.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [keystroke(text, '"name": "Pack at every limit', r)],
    });
    const during = requestsWhileValidating(server, uri, position, done);
    await done;
    diagnostics.push(performance.now() - sent - DEBOUNCE);
    const { hover: h, definition: d } = await during;
    hover.push(...h);
    definition.push(...d);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the model of this version, before the next edit
  }
  const memory = memoryOf(server.child.pid);
  await server.stop();
  return { bytes: Buffer.byteLength(text), cli, opened, diagnostics, hover, definition, memory };
}

const machine = machineLine();
const keys = await demoKeystrokes();
const big = await limitPack();
rmSync(dir, { recursive: true, force: true });
const ratio = median(big.diagnostics) / median(big.cli);
const markdown = [
  `Machine: ${machine}; pause after a change ${DEBOUNCE} ms (the default), left out of every time below.`,
  '',
  '| Measure | Value | Target |',
  '|---|---:|---|',
  `| Demo pack (buyer-lead-starter, 11 KB): a keystroke's findings published, p95 of ${KEYSTROKES} | ${ms(quantile(keys, 0.95))} (median ${ms(median(keys))}) | ≤ 50 ms: ${quantile(keys, 0.95) <= 50 ? 'met' : 'missed'} |`,
  `| Pack at every limit (${(big.bytes / 2 ** 20).toFixed(1)} MiB): \`setup-pack validate\`, whole process, median of ${ROUNDS} | ${ms(median(big.cli))} | |`,
  `| the same text in the server: an edit's findings published, median of ${ROUNDS} | ${ms(median(big.diagnostics))} (${ratio.toFixed(2)}× the CLI) | ≤ 1.5× the CLI: ${ratio <= 1.5 ? 'met' : 'missed'} |`,
  `| hover while that validation runs, p95 of ${big.hover.length} | ${ms(quantile(big.hover, 0.95))} (median ${ms(median(big.hover))}) | ≤ 50 ms: ${quantile(big.hover, 0.95) <= 50 ? 'met' : 'missed'} |`,
  `| go to definition while it runs, p95 of ${big.definition.length} | ${ms(quantile(big.definition, 0.95))} (median ${ms(median(big.definition))}) | ≤ 50 ms: ${quantile(big.definition, 0.95) <= 50 ? 'met' : 'missed'} |`,
  `| the pack opened: its findings published (the worker starting cold) | ${ms(big.opened)} | |`,
  `| server memory holding it open (the process, its worker included): resident, peak | ${big.memory.rss.toFixed(0)} MiB, ${big.memory.peak.toFixed(0)} MiB | |`,
].join('\n');
writeSection('language-server', markdown);
console.log(markdown);
