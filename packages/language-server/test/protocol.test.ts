// The server as an editor sees it: the real `setup-pack lsp --stdio` process over stdio, on the
// demo pack `npm start` opens. Each capability is checked against what the CLI says of the same text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeAction, CompletionList, DocumentSymbol, Hover, Location, WorkspaceEdit } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, DEMO_PACK, FIXTURES, LspClient, readText, uriOf } from './client.js';
import { applyEdits, cliFindings, editsOf, fromLsp, keyRange, positionIn, rangeOf } from './compare.js';

let client: LspClient;
const demo = readText(DEMO_PACK);
const uri = uriOf(DEMO_PACK);
let version = 1;

beforeAll(async () => {
  buildServer();
  client = await LspClient.start();
  await client.open(uri, demo);
}, 120_000);

afterAll(async () => {
  expect(await client.stop()).toBe(0);
});

/** Replaces the whole text (as a client with full sync does) and waits for its findings. */
async function setText(text: string) {
  version = await client.change(uri, { text });
  return client.diagnostics(uri, version);
}

describe('setup-pack lsp --stdio on the demo pack', () => {
  it('initializes with the capabilities it serves', () => {
    expect(client.init?.serverInfo?.name).toBe('setup-pack');
    expect(client.init?.capabilities).toMatchObject({
      hoverProvider: true,
      definitionProvider: true,
      referencesProvider: true,
      documentSymbolProvider: true,
      renameProvider: { prepareProvider: true },
    });
    expect(client.init?.capabilities.textDocumentSync).toMatchObject({ openClose: true, change: 2 });
  });

  it('publishes what `setup-pack validate --format json` finds in the same text', async () => {
    expect((await client.diagnostics(uri, 1)).map(fromLsp)).toEqual(cliFindings(demo));
    // An unknown block kind, an edge into a trigger and a template key made a duplicate: errors and warnings with related places.
    const broken = demo
      .replace('"action.add_tag"', '"action.send_fax"')
      .replace('"target": "tag"', '"target": "start"')
      .replace('"key": "tpl-follow-up"', '"key": "tpl-welcome-sms"');
    const published = (await setText(broken)).map(fromLsp);
    expect(published.length).toBeGreaterThanOrEqual(3);
    expect(published).toEqual(cliFindings(broken));
    await setText(demo);
  });

  it('carries the rule docs and the pointer on each diagnostic', async () => {
    const [d] = await setText(demo.replace('"action.add_tag"', '"action.send_fax"'));
    expect(d.code).toBe('schema/enum');
    expect(d.source).toBe('setup-pack');
    expect(d.codeDescription?.href).toBe('https://setup-pack.dev/docs/rules#schemaenum');
    expect(d.data).toMatchObject({ pointer: '/automations/0/document/graph/nodes/1/kind' });
    await setText(demo);
  });

  it('validates incremental edits and publishes for the latest version only', async () => {
    // Five keystrokes faster than the pause: one analysis, of the last text, published once.
    const at = rangeOf(demo, '"Welcome text"');
    const before = client.publications(uri).length;
    let v = version;
    for (const ch of ['W', 'X', 'Y', 'Z', '!'])
      v = await client.change(uri, {
        range: {
          start: { line: at.start.line, character: at.start.character + 1 },
          end: { line: at.start.line, character: at.start.character + 1 },
        },
        text: ch,
      });
    const text = demo.replace('"Welcome text"', '"!ZYXWWelcome text"');
    expect((await client.diagnostics(uri, v)).map(fromLsp)).toEqual(cliFindings(text));
    const since = client.publications(uri).slice(before);
    expect(since.map((p) => p.version)).toEqual([v]);
    version = v;
    await setText(demo);
  });

  it('hovers a block kind, a reference, a key and a finding', async () => {
    const kind = await hoverAt(positionIn(demo, '"action.send_email"', 3));
    expect(kind).toContain('**Send email** `action.send_email`');
    expect(kind).toContain('`template_id` (needed): Template, ref (email_template)');
    // The restored text's findings are published before its model is in, and a hover on a place not
    // edited since answers from the latest model at once: the template's name may be the last
    // test's edit for a moment, so ask until the restored text's model answers.
    await expect
      .poll(() => hoverAt(positionIn(demo, '"template_id": "tpl-welcome-sms"', 20)), { timeout: 15_000, interval: 50 })
      .toContain('message template **Welcome text** `tpl-welcome-sms`, in this pack');
    const user = await hoverAt(positionIn(demo, '"assignee_id": "usr_8841"', 20));
    expect(user).toContain('the workspace object named "Jordan Lee" (Lead agent)');
    const key = await hoverAt(positionIn(demo, '"key": "buyer-pipeline"', 10));
    expect(key).toContain('pipeline **Buyers** `buyer-pipeline`');
    const broken = demo.replace('"probability": 100', '"probability": 90');
    await setText(broken);
    const finding = await hoverAt(positionIn(broken, '"probability": 90', 16));
    expect(finding).toContain('**pipeline/probability-normalised** (warning)');
    expect(finding).toContain('Hint: ');
    await setText(demo);
  });

  it('completes block kinds, config fields and values, reference ids and edge handles', async () => {
    const kinds = await completeAt(positionIn(demo, '"control.wait"', 3));
    expect(kinds).toContain('action.send_email');
    expect(kinds).toContain('trigger.tag_added');
    const withKey = demo.replace('"template_id": "tpl-follow-up"', '"template_id": "tpl-follow-up",\n                "sub"');
    await setText(withKey);
    expect(await completeAt(positionIn(withKey, '"sub"', 2))).toEqual(['template_id', 'subject', 'from_user_id']);
    expect(await completeAt(positionIn(withKey, '"tpl-follow-up"', 2))).toEqual(['tpl-welcome-sms', 'tpl-follow-up']);
    await setText(demo);
    expect(await completeAt(positionIn(demo, '"days"', 2))).toEqual(['minutes', 'hours', 'days']);
    expect(await completeAt(positionIn(demo, '"handle": "true"', 12))).toEqual(['true', 'false']);
    expect(await completeAt(positionIn(demo, '"handle": "ready"', 12))).toEqual(['ready', 'later']);
    // An assignee: a user, which the pack does not carry; the automation's references name one.
    expect(await completeAt(positionIn(demo, '"usr_8841"', 2))).toEqual(['usr_8841']);
  });

  it("hovers a block with what it does in the pack: the automations its events start, a trigger's starters", async () => {
    const file = join(FIXTURES, 'invalid/flow-cascade-loop.json');
    const text = readFileSync(file, 'utf8');
    const loop = uriOf(file);
    await client.open(loop, text);
    expect((await client.diagnostics(loop, 1)).map((d) => d.code)).toContain('flow/cascade-loop');
    const at = async (needle: string, n: number) =>
      (
        (await client.request<Hover>('textDocument/hover', { textDocument: { uri: loop }, position: positionIn(text, needle, 3, n) }))
          ?.contents as { value: string }
      ).value;
    // New lead's add_tag (the first), then Hot lead's trigger (the first tag_added).
    const adds = await at('"action.add_tag"', 0);
    expect(adds).toContain('**In this pack** (the effects model, [behaviour.md](https://setup-pack.dev/docs/behaviour))');
    expect(adds).toMatch(/- adds tag .*, which starts "Hot lead"/);
    const trigger = await at('"trigger.tag_added"', 0);
    expect(trigger).toMatch(/- started by "New lead" block "tag": adds tag /);
    expect(trigger).toMatch(/- started by "Warm lead" block "hot": adds tag /);
    // The demo's blocks start nothing of the pack: their hover says only what the catalog says.
    expect(await hoverAt(positionIn(demo, '"action.send_email"', 3))).not.toContain('In this pack');
    await client.close(loop);
  });

  it("completes and explains merge tags in a template's body and subject, nowhere else", async () => {
    // An unclosed tag being typed: the name is completed and the braces closed.
    const typing = demo.replace('"Hi {{contact.first_name}},', '"Hi {{cont,');
    await setText(typing);
    const list = await client.request<CompletionList>('textDocument/completion', {
      textDocument: { uri },
      position: positionIn(typing, '{{cont,', 6),
    });
    const first = list.items.find((i) => i.label === 'contact.first_name')!;
    expect(first.detail).toBe('First name');
    expect(applyEdits(typing, [first.textEdit as never])).toBe(demo);
    // Inside a closed tag of the subject: the name and its braces are replaced, nothing doubled.
    await setText(demo);
    const subject = await client.request<CompletionList>('textDocument/completion', {
      textDocument: { uri },
      position: positionIn(demo, 'like, {{contact.first_name}}', 10),
    });
    const last = subject.items.find((i) => i.label === 'contact.last_name')!;
    expect(applyEdits(demo, [last.textEdit as never])).toBe(demo.replace('like, {{contact.first_name}}', 'like, {{contact.last_name}}'));
    // A block's config text is not a template's: no merge tags there.
    const config = demo.replace('"Not ready yet; keep nurturing."', '"Not ready yet {{"');
    await setText(config);
    expect(await completeAt(positionIn(config, 'yet {{', 6))).not.toContain('contact.first_name');
    await setText(demo);
    expect(await hoverAt(positionIn(demo, '{{owner.signature}}', 4))).toContain('**Agent signature**');
    const unknown = demo.replace('{{owner.signature}}', '{{owner.nickname}}');
    await setText(unknown);
    expect(await hoverAt(positionIn(unknown, '{{owner.nickname}}', 4))).toContain('not one of the merge tags Setup Pack proposes');
    await setText(demo);
  });

  it('goes to the definition of a key, and finds its references', async () => {
    const def = await client.request<Location>('textDocument/definition', {
      textDocument: { uri },
      position: positionIn(demo, '"template_id": "tpl-welcome-sms"', 20),
    });
    expect(def.range).toEqual(keyRange(demo, 'tpl-welcome-sms'));
    const stage = await client.request<Location>('textDocument/definition', {
      textDocument: { uri },
      position: positionIn(demo, '"stage_id": "showing"', 14),
    });
    expect(stage.range).toEqual(keyRange(demo, 'showing'));
    const refs = await client.request<Location[]>('textDocument/references', {
      textDocument: { uri },
      position: positionIn(demo, '"key": "tpl-welcome-sms"', 10),
      context: { includeDeclaration: true },
    });
    // The key, the block's template_id and the references entry.
    expect(refs.map((l) => l.range).sort(byPosition)).toEqual([0, 1, 2].map((n) => rangeOf(demo, '"tpl-welcome-sms"', n)).sort(byPosition));
  });

  it('renames a key with every reference, and refuses a key that is taken', async () => {
    const position = positionIn(demo, '"key": "tag-buyer-lead"', 10);
    const prepared = await client.request<{ placeholder: string }>('textDocument/prepareRename', { textDocument: { uri }, position });
    expect(prepared.placeholder).toBe('tag-buyer-lead');
    const edit = await client.request<WorkspaceEdit>('textDocument/rename', { textDocument: { uri }, position, newName: 'tag-buyer' });
    const renamed = applyEdits(demo, editsOf(edit, uri));
    // The block's tag_id, the references entry, the smart list's filter value and the key itself.
    expect(editsOf(edit, uri)).toHaveLength(4);
    expect(renamed).not.toContain('tag-buyer-lead');
    expect(cliFindings(renamed)).toEqual(cliFindings(demo));
    const taken = await client
      .request('textDocument/rename', { textDocument: { uri }, position, newName: 'tag-hot' })
      .catch((e: Error) => e);
    expect(String(taken)).toContain('The key "tag-hot" is taken: resources[3] ("Hot lead") has it');
  });

  it("offers core's fixes as quick fixes, and Fix all", async () => {
    const file = join(FIXTURES, 'invalid/asset-sha256-mismatch.json');
    const text = readFileSync(file, 'utf8');
    const fixUri = uriOf(file);
    await client.open(fixUri, text);
    const [finding] = (await client.diagnostics(fixUri, 1)).filter((d) => d.code === 'asset/sha256-mismatch');
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: fixUri },
      range: finding.range,
      context: { diagnostics: [finding] },
    });
    const quick = actions.find((a) => a.kind === 'quickfix' && a.diagnostics?.length);
    expect(quick?.title).toMatch(/^Set sha256 to "[0-9a-f]+…" \(setup-pack fix\)$/);
    const fixed = applyEdits(text, editsOf(quick!.edit!, fixUri));
    expect(cliFindings(fixed).map((f) => f.code)).not.toContain('asset/sha256-mismatch');
    const all = actions.find((a) => a.title.startsWith('Fix all'));
    expect(all).toBeDefined();
    expect(cliFindings(applyEdits(text, editsOf(all!.edit!, fixUri))).filter((f) => f.severity === 'error')).toEqual([]);
    await client.close(fixUri);
  });

  it('outlines automations with their blocks, and pipelines with their stages', async () => {
    const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
    expect(symbols.map((s) => s.name)).toEqual([
      'new-lead-welcome',
      'nurture-by-stage',
      'old-reminder',
      'new-buyer-leads',
      'tpl-welcome-sms',
      'tpl-follow-up',
      'buyer-pipeline',
      'tag-buyer-lead',
      'stage-nurture',
      'src-zillow',
      'tag-hot',
    ]);
    expect(symbols[0].children!.map((c) => `${c.name} ${c.detail}`)).toEqual([
      'start Contact created · trigger.contact_created',
      'tag Add tag · action.add_tag',
      'sms Send SMS · action.send_sms',
      'wait Wait · control.wait',
      'replied If / else · control.if',
      'task Create task · action.create_task',
      'email Send email · action.send_email',
    ]);
    expect(symbols[6].children!.map((c) => c.name)).toEqual(['new', 'showing', 'offer', 'won', 'lost']);
    // An item's range is the whole object: the automation's runs from its { to its }.
    const lines = demo.split('\n');
    expect(lines[symbols[1].range.start.line].trim()).toBe('{');
    expect(lines[symbols[1].range.end.line].trim()).toBe('},');
  });

  it('gives findings for text that is not JSON or not a pack, and stays up when a request fails', async () => {
    const bad = 'file:///not-json.pack';
    await client.open(bad, '{ "format": "service.setup-pack", "packId": ', 'setup-pack');
    expect((await client.diagnostics(bad, 1)).map((d) => d.code)).toContain('json/syntax');
    const array = 'file:///array.pack';
    await client.open(array, '[]', 'setup-pack');
    expect((await client.diagnostics(array, 1)).map((d) => d.message)).toEqual(['A pack is a JSON object, not an array.']);
    expect(await client.request('textDocument/hover', { textDocument: { uri: bad }, position: { line: 0, character: 3 } })).toBeNull();
    const failed = await client.request('textDocument/hover', { textDocument: { uri }, position: null }).catch((e: Error) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(await hoverAt(positionIn(demo, '"action.send_email"', 3))).toContain('Send email');
    // A JSON document that is not a pack is left alone: no findings are published for it.
    await client.open('file:///package.json', '{ "name": "x" }');
    await client.open('file:///later.json', '{}');
    await client.change('file:///later.json', { text: '{ "format": "service.setup-pack", "packId": "x" }' });
    expect((await client.diagnostics('file:///later.json', 2)).map((d) => d.code)).toContain('schema/format');
    expect(client.publications('file:///package.json')).toEqual([]);
  });
});

describe('keys used across item kinds (listing-marketing)', () => {
  const file = join(FIXTURES, 'valid/listing-marketing.json');
  const text = readFileSync(file, 'utf8');
  const listing = uriOf(file);

  it("goes from a trigger's smart list and a template's image address to the item", async () => {
    await client.open(listing, text);
    await client.diagnostics(listing, 1);
    const list = await client.request<Location>('textDocument/definition', {
      textDocument: { uri: listing },
      position: positionIn(text, '"smart_list_id": "active-buyers"', 20),
    });
    expect(list.range).toEqual(keyRange(text, 'active-buyers'));
    const url = 'https://cdn.example-brokerage.com/email/open-house-hero.png';
    const image = await client.request<Location>('textDocument/definition', {
      textDocument: { uri: listing },
      position: positionIn(text, url, 5),
    });
    expect(image.range).toEqual(keyRange(text, 'open-house-hero'));
    // The template's body, its design's image src, its html and its thumbnail use the address.
    const uses = await client.request<Location[]>('textDocument/references', {
      textDocument: { uri: listing },
      position: positionIn(text, '"key": "open-house-hero"', 10),
      context: { includeDeclaration: false },
    });
    expect(uses.map((l) => l.range).sort(byPosition)).toEqual([0, 1, 2, 3].map((n) => rangeOf(text, url, n)));
  });

  it("completes a smart list condition's ids from the pack's keys of the field's type", async () => {
    expect(await completeAt(positionIn(demo, '"value": "tag-buyer-lead"', 12))).toEqual(['tag-buyer-lead', 'tag-hot']);
    await client.close(listing);
  });
});

async function hoverAt(position: { line: number; character: number }): Promise<string> {
  const h = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position });
  return h ? (h.contents as { value: string }).value : '';
}

async function completeAt(position: { line: number; character: number }): Promise<string[]> {
  const list = await client.request<CompletionList | null>('textDocument/completion', { textDocument: { uri }, position });
  return list?.items.map((i) => i.label) ?? [];
}

const byPosition = (a: { start: { line: number; character: number } }, b: { start: { line: number; character: number } }) =>
  a.start.line - b.start.line || a.start.character - b.start.character;
