// docs/cli.md keeps up with the code: every command, every option, every output format.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../src/commands/index.js';
import { COMMON_OPTIONS } from '../src/lib/args.js';
import { FORMATS } from '../src/report/index.js';
import { BUILD_RULES } from '../src/source/layout.js';
import { ROOT } from './helpers.js';

const docs = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
const installDocs = readFileSync(join(ROOT, 'docs/install.md'), 'utf8');
const OWN = ['validate', 'build', 'unpack', 'new', 'fmt', 'fix', 'diff', 'schema', 'export'];

describe('docs/cli.md', () => {
  it.each(OWN)('documents %s and each of its options', async (name) => {
    const { spec } = await COMMANDS[name].load();
    expect(docs).toContain(`## ${name}`);
    expect(docs).toContain(`setup-pack ${name}`);
    for (const [option, o] of Object.entries(spec.options)) {
      expect(docs, `--${option}`).toContain(`--${option}`);
      if (o.short) expect(docs, `-${o.short}`).toContain(`\`-${o.short}\``);
    }
  });

  it.each(OWN)('states the exit codes of %s as its help does, when it has its own', async (name) => {
    const { spec } = await COMMANDS[name].load();
    if (spec.exitCodes === undefined) return;
    // The help's line, word for word, in the command's own section (the detail may follow it).
    const section = docs.slice(docs.indexOf(`\n## ${name}\n`), docs.indexOf('\n## ', docs.indexOf(`\n## ${name}\n`) + 1));
    expect(section.replace(/\s+/g, ' ')).toContain(spec.exitCodes);
  });

  it('documents simulate, each of its options and its exit codes in docs/behaviour.md', async () => {
    const { spec } = await COMMANDS.simulate.load();
    const behaviour = readFileSync(join(ROOT, 'docs/behaviour.md'), 'utf8');
    expect(spec.docs).toBe('docs/behaviour.md');
    for (const option of Object.keys(spec.options)) expect(behaviour, `--${option}`).toContain(`--${option}`);
    expect(behaviour.replace(/\s+/g, ' ')).toContain(spec.exitCodes!);
    expect(docs).toContain('## simulate');
  });

  // The workspace commands are documented with the installer (docs/install.md, Commands).
  it.each(['plan', 'install', 'uninstall', 'status', 'unlock'])(
    'states the exit codes of %s in docs/install.md as its help does',
    async (name) => {
      const { spec } = await COMMANDS[name].load();
      expect(spec.exitCodes, name).toBeDefined();
      expect(spec.docs, name).toBe('docs/install.md');
      expect(installDocs.replace(/\s+/g, ' ')).toContain(spec.exitCodes!.replace(/^Exit codes: /, ''));
    },
  );

  it('mentions every other registered command, the common options, formats and build codes', () => {
    for (const name of Object.keys(COMMANDS)) expect(docs).toContain(name);
    for (const option of Object.keys(COMMON_OPTIONS)) expect(docs).toContain(`--${option}`);
    for (const f of FORMATS) expect(docs).toContain(`### ${f}`);
    for (const r of BUILD_RULES) expect(docs).toContain(r.code);
    expect(docs).toContain('validate-report.schema.json');
  });
});
