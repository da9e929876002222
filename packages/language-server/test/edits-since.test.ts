// Answers from a model older than the text: a jump is answered from the latest model with its
// places moved over the edits made since, whether the client sends ranges or whole texts. A pause
// longer than the test keeps the newer text from being analysed, so the older model must answer.
import type { Location } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, DEMO_PACK, LspClient, readText, uriOf } from './client.js';
import { keyRange, positionIn, rangeOf } from './compare.js';

let client: LspClient;
const demo = readText(DEMO_PACK);
const uri = uriOf(DEMO_PACK);
const shorter = demo.replace('{{owner.signature}}', '{{owner.nickname}}');

beforeAll(async () => {
  buildServer();
  client = await LspClient.start({ debounceMs: 600_000 });
  await client.open(uri, demo);
  await client.diagnostics(uri, 1);
}, 120_000);

afterAll(async () => {
  expect(await client.stop()).toBe(0);
});

/** The text's model analysed now: a rename reads the model of the current text, whatever the pause. */
async function analyseNow(text: string) {
  await client.request('textDocument/prepareRename', { textDocument: { uri }, position: positionIn(text, '"key": "tag-hot"', 10) });
  await client.request('textDocument/rename', {
    textDocument: { uri },
    position: positionIn(text, '"key": "tag-hot"', 10),
    newName: 'tag-warm',
  });
}

const stageDefinition = (text: string) =>
  client.request<Location>('textDocument/definition', { textDocument: { uri }, position: positionIn(text, '"stage_id": "showing"', 14) });

describe('a jump answered from the model of an older text', () => {
  it('moves its places over a whole-text change', async () => {
    await client.change(uri, { text: shorter });
    await analyseNow(shorter);
    // The template's tag is one character longer again, before the stage: the key moves right by one.
    await client.change(uri, { text: demo });
    expect((await stageDefinition(demo)).range).toEqual(keyRange(demo, 'showing'));
  });

  it('moves its places over a change of a range that spans lines', async () => {
    await client.change(uri, { text: demo });
    await analyseNow(demo);
    // From the tag inside the template's body to the end of the template's line after it: lines are removed.
    const from = rangeOf(demo, '{{owner.signature}}').start;
    const lines = demo.split('\n');
    const to = { line: from.line + 2, character: lines[from.line + 2].length };
    await client.change(uri, { range: { start: from, end: to }, text: 'x' });
    const edited = [...lines.slice(0, from.line), lines[from.line].slice(0, from.character) + 'x', ...lines.slice(from.line + 3)].join(
      '\n',
    );
    expect((await stageDefinition(edited)).range).toEqual(keyRange(edited, 'showing'));
  });
});
