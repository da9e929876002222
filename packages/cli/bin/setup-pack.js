#!/usr/bin/env node
// The bundled command (scripts/bundle-cli.mjs, part of the build): one module graph to load.
import { main } from '../dist/bundle/main.js';
main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
