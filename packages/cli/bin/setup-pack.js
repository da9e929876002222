#!/usr/bin/env node
// The bundled command (scripts/bundle-cli.mjs, part of the build): one CommonJS file, compiled
// with the V8 code cache its last line names, so the functions a run needs arrive compiled. A
// cache that is missing, or that V8 rejects (another V8 version or other V8 flags; V8 checks it),
// only means compiling from source as without one. `NODE_DEBUG=setup-pack` says which it was.
// SETUP_PACK_WRITE_CODE_CACHE=<file> is the build's: use <file> as the cache and write it at exit.
// This file is CommonJS (bin/package.json), the quicker entry point for node to start.
'use strict';
const { closeSync, openSync, read, readFileSync, statSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join, resolve } = require('node:path');
const { debuglog } = require('node:util');
const { Script } = require('node:vm');

// Read-ahead: the large files `validate` is given (a pack of many MiB) are read on libuv's thread
// pool, one read each into a buffer of the file's size, while the bundle below compiles and starts;
// the command takes each once (readText in src/lib/files.ts) instead of reading it again. Only the
// first files of READ_AHEAD_MIN to READ_AHEAD_MAX bytes among the first arguments, so a
// shell-expanded glob of many small packs costs no more than a stat each of those, and a huge file
// named as an option's value is not read in vain. A read that falls short or fails leaves the file
// to the command's own read, which says what is wrong with it.
const READ_AHEAD_MIN = 1 << 20;
const READ_AHEAD_MAX = 1 << 28;
const readAhead = new Map();
if (process.argv[2] === 'validate') {
  for (const arg of process.argv.slice(3, 67)) {
    if (readAhead.size === 8) break;
    if (arg.startsWith('-')) continue;
    try {
      // stat first: opening a named pipe would wait for its writer.
      const st = statSync(arg, { throwIfNoEntry: false });
      if (!st?.isFile() || st.size < READ_AHEAD_MIN || st.size > READ_AHEAD_MAX) continue;
      const bytes = Buffer.allocUnsafeSlow(st.size);
      const fd = openSync(arg, 'r');
      readAhead.set(
        resolve(arg),
        new Promise((done) =>
          read(fd, bytes, 0, st.size, 0, (error, n) => {
            closeSync(fd);
            done(error || n !== st.size ? undefined : bytes);
          }),
        ),
      );
    } catch {
      // not readable now: the command says why when it reads it
    }
  }
}

const dir = join(__dirname, '../dist/bundle');
const file = join(dir, 'main.cjs');
let source;
try {
  source = readFileSync(file, 'latin1'); // ASCII, made so by the build: nothing to decode
} catch (e) {
  // A checkout that was never built (or only type-checked): say what to do, not a stack trace.
  const why = e.code === 'ENOENT' ? 'the command is not built; run `npm run build` (or `npm install`) in the repository' : e.message;
  process.stderr.write(`setup-pack: cannot load ${file}: ${why}\n`);
  process.exit(2);
}
const writeTo = process.env.SETUP_PACK_WRITE_CODE_CACHE;
const named = /\/\/# setup-pack-code-cache=([\w.-]+)\n$/.exec(source.slice(-200))?.[1];
const cacheFile = writeTo || (named && join(dir, named));
let cachedData;
try {
  if (cacheFile) cachedData = readFileSync(cacheFile);
} catch {
  // no cache: compile from source
}
const script = new Script(Module.wrap(source), { filename: file, cachedData });
debuglog('setup-pack')('code cache %s', cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'accepted');
// At exit, the cache holds what this run compiled too (functions compile lazily, as they first run).
if (writeTo) process.once('exit', () => writeFileSync(writeTo, script.createCachedData()));
const bundle = { exports: {} };
script.runInThisContext().call(bundle.exports, bundle.exports, Module.createRequire(file), bundle, file, dir);
if (readAhead.size) debuglog('setup-pack')('reading ahead %s', [...readAhead.keys()].join(', '));
bundle.exports.main(process.argv.slice(2), undefined, readAhead).then((code) => {
  process.exitCode = code;
});
