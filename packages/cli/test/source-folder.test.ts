// A source folder as its users meet it: made by `new` or `unpack`, edited by hand, then built,
// validated, formatted and diffed. Each test runs the real CLI on a real folder.
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, readJson, ROOT, run, tempDir } from './helpers.js';

beforeAll(() => ensureBuilt());

const fixturePath = (f: string) => join(ROOT, 'fixtures', f);

// The starter fixture has an sms template (body in .txt) and an email one (body in .html).
const starter = readJson(fixturePath('valid/buyer-lead-starter.json'));
const sms = starter.messageTemplates.findIndex((t: any) => t.channel === 'sms');
const email = starter.messageTemplates.findIndex((t: any) => t.channel === 'email');
const smsKey = starter.messageTemplates[sms].key as string;
const emailKey = starter.messageTemplates[email].key as string;

describe('a property the layout keeps in a file of its own, missing', () => {
  const bodyless = () => {
    const cwd = tempDir();
    expect(run(['unpack', fixturePath('valid/buyer-lead-starter.json'), 'p'], { cwd }).code).toBe(0);
    rmSync(join(cwd, 'p', 'templates', `${smsKey}.txt`));
    rmSync(join(cwd, 'p', 'templates', `${emailKey}.html`));
    return cwd;
  };
  const says = (file: string) => `${file} does not exist`;

  it("is the schema's finding, placed at the file to create and saying it does not exist (pretty: validate and build)", () => {
    const cwd = bodyless();
    for (const command of ['validate', 'build']) {
      const r = run([command, 'p'], { cwd });
      expect(r.code, command).toBe(1);
      const out = command === 'build' ? r.stderr : r.stdout;
      for (const [i, file] of [
        [sms, `templates/${smsKey}.txt`],
        [email, `templates/${emailKey}.html`],
      ] as const) {
        const line = out.split('\n').find((l) => l.startsWith(`p/${file}:`));
        expect(line, `${command}: ${out}`).toBeDefined();
        expect(line).toContain(`error messageTemplates[${i}] is missing the required field "body"`);
        expect(line).toContain(says(file));
        expect(line).toMatch(/schema\/required$/);
      }
      // Not at the template's JSON file, where the user cannot add a file.
      expect(out).not.toMatch(new RegExp(`p/templates/${smsKey}\\.json:`));
    }
  });

  it('json, sarif and github carry the file to create', () => {
    const cwd = bodyless();
    const smsFile = `p/templates/${smsKey}.txt`;
    const emailFile = `p/templates/${emailKey}.html`;

    const json = JSON.parse(run(['validate', '-f', 'json', 'p'], { cwd }).stdout);
    for (const [path, i] of [
      [smsFile, sms],
      [emailFile, email],
    ] as const) {
      const entry = json.files.find((f: any) => f.path === path);
      expect(entry, JSON.stringify(json.files.map((f: any) => f.path))).toBeDefined();
      expect(entry.valid).toBe(false);
      expect(entry.diagnostics).toHaveLength(1);
      expect(entry.diagnostics[0]).toMatchObject({ code: 'schema/required', severity: 'error', missing: 'body', pointer: '' });
      expect(entry.diagnostics[0].message).toContain(`messageTemplates[${i}] is missing the required field "body"`);
      expect(entry.diagnostics[0].message).toContain(says(path.slice(2)));
    }
    expect(json.files.some((f: any) => f.path.endsWith('.json') && f.path.startsWith('p/templates/'))).toBe(false);

    const sarif = JSON.parse(run(['validate', '-f', 'sarif', 'p'], { cwd }).stdout).runs[0];
    const uris = sarif.results
      .filter((r: any) => r.ruleId === 'schema/required')
      .map((r: any) => r.locations[0].physicalLocation.artifactLocation.uri)
      .sort();
    expect(uris).toEqual([emailFile, smsFile].sort());
    for (const r of sarif.results) expect(r.message.text).toMatch(/does not exist/);

    const github = run(['validate', '-f', 'github', 'p'], { cwd, env: { GITHUB_WORKSPACE: cwd } });
    expect(github.code).toBe(1);
    for (const file of [smsFile, emailFile])
      expect(github.stdout).toMatch(
        new RegExp(
          `^::error file=${file.replace(/\./g, '\\.')},line=1,col=1[^:]*title=setup-pack schema/required::.*${says(file.slice(2)).replace(/\./g, '\\.')}`,
          'm',
        ),
      );
  });

  it('is not said of a body written as "body" in the template\'s JSON file: that is where it is', () => {
    const cwd = tempDir();
    run(['unpack', fixturePath('valid/buyer-lead-starter.json'), 'p'], { cwd });
    const file = join(cwd, 'p', 'templates', `${smsKey}.json`);
    const tpl = readJson(file);
    rmSync(join(cwd, 'p', 'templates', `${smsKey}.txt`));
    writeFileSync(file, JSON.stringify({ ...tpl, body: 'Hi {{contact.first_name}}' }, null, 2));
    const r = run(['validate', 'p'], { cwd });
    expect(r.stdout).toMatch(/^✔/m);
    expect(r.code).toBe(0);
  });
});

describe('new and export take every name the pack schema takes', () => {
  // The schema's rule for a pack's name is a length; a name of spaces is one it takes.
  const names = [' ', '  ', '\t', '\u00a0', 'x', '', 'n'.repeat(161)];
  const NO_WORKSPACE = { WORKSPACE_URL: undefined, WORKSPACE_API_KEY: undefined };

  it('new refuses a --name (or --author) only when the schema does, and writes it as given', async () => {
    const { acceptsProperty } = await import('@setup-pack/core');
    const cwd = tempDir();
    expect(names.filter((n) => !acceptsProperty('pack', 'name', n))).toEqual(['', 'n'.repeat(161)]);
    names.forEach((name, i) => {
      const r = run(['new', `p${i}`, '--name', name, '--author', name], { cwd });
      if (!acceptsProperty('pack', 'name', name)) {
        expect(r.code, JSON.stringify(name)).toBe(2);
        expect(r.stderr).toMatch(/^setup-pack new: --name must /);
        return;
      }
      expect(r.code, `${JSON.stringify(name)}: ${r.stderr}`).toBe(0);
      expect(readJson(join(cwd, `p${i}`, 'manifest.json'))).toMatchObject({ name, author: name });
      const b = run(['build', `p${i}`, '-o', `p${i}.json`], { cwd });
      expect(b.code, b.stderr).toBe(0);
      expect(readJson(join(cwd, `p${i}.json`))).toMatchObject({ name, author: name });
    });
  });

  it('new writes an --author the schema takes, an empty one too, rather than leaving it out', () => {
    const cwd = tempDir();
    expect(run(['new', 'p', '--author', ''], { cwd }).code).toBe(0);
    expect(readJson(join(cwd, 'p', 'manifest.json'))).toHaveProperty('author', '');
  });

  it('export --all --name takes a name of spaces: the options pass, and the workspace is asked for next', () => {
    const r = run(['export', '--all', '--name', '  '], { env: NO_WORKSPACE });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('setup-pack export: no workspace address: pass --url or set WORKSPACE_URL\n');
  });
});

describe('a template file edited by hand that does not parse', () => {
  it('is one finding, not its body file called unlisted too', () => {
    const cwd = tempDir();
    run(['new', 'p'], { cwd });
    writeFileSync(join(cwd, 'p/templates/welcome-email.json'), '{ "name": "Welcome email", "channel": "email", \n');
    for (const command of ['validate', 'build']) {
      const r = run([command, 'p'], { cwd });
      expect(r.code).toBe(1);
      const out = r.stdout + r.stderr;
      expect(out).toMatch(/^p\/templates\/welcome-email\.json:2:1 error The file is not valid JSON/m);
      expect(out, command).not.toContain('build/unlisted-file');
      expect(out, command).toMatch(/1 error, 0 warnings in 1 file/);
    }
  });
});

describe('a resource file renamed by hand', () => {
  it('to a name that is no kind is said to give the kind by its name', () => {
    const cwd = tempDir();
    run(['new', 'p'], { cwd });
    renameSync(join(cwd, 'p/resources/tag.json'), join(cwd, 'p/resources/tags.json'));
    const r = run(['validate', 'p'], { cwd });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^p\/resources\/tags\.json:2:3 error resources\[0\]\.kind is "tags", which is not one of the allowed values: .* The source folder takes the resource's kind from its file's name, resources\/tags\.json\. schema\/enum$/m,
    );
    expect(r.stdout).toContain('hint: Name the file after the kind of the resources it holds (resources/tag.json)');
  });
});

describe('a template body and a byte order mark', () => {
  it('a body that starts with U+FEFF comes back from unpack and build; a BOM and CRLF an editor writes in a body file do not change it', () => {
    const cwd = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    pack.messageTemplates[email].body = `\uFEFF${pack.messageTemplates[email].body}`;
    writeFileSync(join(cwd, 'bom.json'), JSON.stringify(pack, null, 2));
    expect(run(['unpack', 'bom.json', 'p'], { cwd }).code).toBe(0);
    expect(run(['build', 'p', '-o', 'out.json'], { cwd }).code).toBe(0);
    const d = run(['diff', '--exit-code', 'bom.json', 'p'], { cwd });
    expect(d.stdout).toMatch(/No changes\./);
    expect(d.code).toBe(0);
    expect(readJson(join(cwd, 'out.json')).messageTemplates[email].body).toBe(pack.messageTemplates[email].body);
    // An editor's BOM at the start of a body file is its encoding mark; CRLF stays CRLF.
    const html = join(cwd, 'p/templates', `${pack.messageTemplates[sms].key}.txt`);
    const text = readFileSync(html, 'utf8');
    writeFileSync(html, `\uFEFF${text.replace(/\n/g, '\r\n')}`);
    expect(run(['build', 'p', '-o', 'crlf.json'], { cwd }).code).toBe(0);
    expect(readJson(join(cwd, 'crlf.json')).messageTemplates[sms].body).toBe(text.replace(/\n/g, '\r\n'));
  });
});

describe('a source folder whose manifest.json is missing', () => {
  const manifestless = () => {
    const cwd = tempDir();
    run(['new', 'p'], { cwd });
    rmSync(join(cwd, 'p/manifest.json'));
    return cwd;
  };
  const says =
    /^p\/manifest\.json error The folder holds automations\/, resources\/ and templates\/ as a pack source folder does, but no manifest\.json: it is missing\. build\/missing-file$/m;

  it('is said to be one, naming the missing file, by validate (the folder, a glob, a file of it) and build; its files are not read as packs', () => {
    const cwd = manifestless();
    for (const args of [
      ['validate', 'p'],
      ['validate', 'p/**/*.json'],
      ['validate', 'p/automations/welcome-new-contact.json'],
      ['build', 'p'],
    ]) {
      const r = run(args, { cwd });
      const out = r.stdout + r.stderr;
      expect(r.code, args.join(' ')).toBe(1);
      expect(out, args.join(' ')).toMatch(says);
      expect(out, args.join(' ')).not.toContain('schema/required');
      expect(out, args.join(' ')).toMatch(/1 error, 0 warnings in 1 file/);
    }
    const json = JSON.parse(run(['validate', '--format', 'json', 'p'], { cwd }).stdout);
    expect(json.files.map((f: any) => f.path)).toEqual(['p/manifest.json']);
    expect(json.files[0].diagnostics[0]).toMatchObject({ code: 'build/missing-file', hint: expect.stringContaining('manifest.json') });
  });

  it('fmt formats its files in their roles, never as packs, and diff and fix say the manifest is missing', () => {
    const cwd = manifestless();
    const automation = join(cwd, 'p/automations/welcome-new-contact.json');
    const before = readFileSync(automation, 'utf8');
    const f = run(['fmt', 'p'], { cwd });
    expect(f.stdout + f.stderr).not.toMatch(/welcome-new-contact\.json: formatted/);
    expect(readFileSync(automation, 'utf8')).toBe(before);
    const x = run(['fix', 'p'], { cwd });
    expect(x.code).toBe(1);
    expect(readFileSync(automation, 'utf8')).toBe(before);
    const d = run(['diff', 'p', 'p'], { cwd });
    expect(d.code).toBe(2);
    expect(d.stderr).toMatch(says);
  });

  it("a folder of packs whose subfolders happen to be named as the layout's is still a folder of packs", () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'packs/templates'), { recursive: true });
    writeFileSync(join(cwd, 'packs/templates/starter.json'), readFileSync(fixturePath('valid/buyer-lead-starter.json')));
    const r = run(['validate', 'packs'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/in 1 file/);
  });
});

describe("a note kept in one of the layout's folders", () => {
  it('a README or notes file is no item file, and is not flagged; a file of another kind is said to be never read, with the right hint', () => {
    const cwd = tempDir();
    run(['new', 'p'], { cwd });
    writeFileSync(join(cwd, 'p/automations/README.md'), '# Automations\n');
    writeFileSync(join(cwd, 'p/templates/NOTES.txt'), 'notes\n');
    expect(run(['validate', 'p'], { cwd }).code).toBe(0);
    expect(run(['build', 'p', '-o', 'out.json'], { cwd }).code).toBe(0);
    writeFileSync(join(cwd, 'p/automations/welcome.yaml'), 'kind: x\n');
    const r = run(['validate', 'p'], { cwd });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^p\/automations\/welcome\.yaml:1:1 error automations\/welcome\.yaml is not a file build reads: automations\/ holds one <key>\.json file per automation, so it would be left out\. build\/unlisted-file$/m,
    );
    expect(r.stdout).not.toContain('List its key');
    expect(r.stdout).toContain('hint: Move it out of automations/, or make it automations/<key>.json and list the key in manifest.json');
    // An item file whose key is not listed keeps its hint.
    rmSync(join(cwd, 'p/automations/welcome.yaml'));
    writeFileSync(join(cwd, 'p/automations/draft.json'), '{}\n');
    expect(run(['validate', 'p'], { cwd }).stdout).toContain('hint: List its key in manifest.json');
  });
});

describe('a file in resources/ that build does not read', () => {
  it('is said, as one in an item folder is, rather than left out without a word; a note there is skipped', () => {
    const cwd = tempDir();
    run(['new', 'p'], { cwd });
    writeFileSync(join(cwd, 'p/resources/README.md'), '# Resources\n');
    expect(run(['validate', 'p'], { cwd }).code).toBe(0);
    writeFileSync(join(cwd, 'p/resources/tag.yaml'), '- key: hot\n');
    mkdirSync(join(cwd, 'p/resources/old'));
    writeFileSync(join(cwd, 'p/resources/old/tag.json'), '[]\n');
    const r = run(['validate', 'p'], { cwd });
    expect(r.code).toBe(1);
    for (const file of ['resources/tag.yaml', 'resources/old/tag.json']) {
      expect(r.stdout).toContain(
        `p/${file}:1:1 error ${file} is not a file build reads: resources/ holds one <kind>.json file per resource kind, so it would be left out. build/unlisted-file`,
      );
    }
    expect(r.stdout).toContain('hint: Move it out of resources/, or make it resources/<kind>.json');
  });
});
