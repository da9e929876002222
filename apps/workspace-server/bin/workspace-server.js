#!/usr/bin/env node
import { main } from '../dist/bin.js';
main(process.argv.slice(2)).then((code) => {
  if (code !== undefined) process.exitCode = code;
});
