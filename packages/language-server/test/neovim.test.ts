// A real third-party client: Neovim (Debian's neovim), headless, with its built-in LSP client and no
// plugin, runs `setup-pack lsp --stdio` on a pack file, receives the findings, applies the quick
// fix of one, jumps from a block's template_id to the template, renames the template's key and
// writes the file; the CLI then
// validates what Neovim wrote. Without nvim the suite is skipped, saying why (npm run setup:test
// installs it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, buildServer, DEMO_PACK, readText } from './client.js';
import { cliFindings } from './compare.js';

const nvim = process.env.NVIM_PATH ?? 'nvim';
const probe = spawnSync(nvim, ['--version'], { encoding: 'utf8' });
const missing = probe.status === 0 ? '' : `no Neovim (${nvim}): install Debian's neovim (npm run setup:test) or set NVIM_PATH`;
if (missing) console.warn(`language server in Neovim: SKIPPED, ${missing}`);

// The script Neovim runs: every step waits (vim.wait) for the server's answer, then records it.
// vim.lsp.start (Neovim 0.8+) where there is one, else start_client and buf_attach_client (0.7).
const SCRIPT = String.raw`
local out = {}
local function done(err)
  out.error = err
  vim.fn.writefile({ vim.json.encode(out) }, vim.env.RESULT)
  vim.cmd('qall!')
end
local ok, err = pcall(function()
  local buf = vim.api.nvim_get_current_buf()
  local config = { name = 'setup-pack', cmd = { vim.env.NODE, vim.env.BIN, 'lsp', '--stdio' }, root_dir = vim.fn.getcwd() }
  local id
  if vim.lsp.start then id = vim.lsp.start(config) else id = vim.lsp.start_client(config); vim.lsp.buf_attach_client(buf, id) end
  if not vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50) then error('no diagnostics') end
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(out.diagnostics, { code = code, line = d.lnum + 1, message = d.message })
  end
  -- The quick fix on the finding, as a code action menu offers it, applied to the buffer.
  -- The finding as LSP gave it (Neovim keeps only some of its fields in user_data).
  local d = vim.diagnostic.get(buf)[1]
  local lsp = vim.tbl_extend('force', d.user_data.lsp, { range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } }, message = d.message, source = d.source, severity = d.severity })
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, range = lsp.range, context = { diagnostics = { lsp } } }
  local fix
  for _, answer in pairs(vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000) or {}) do
    for _, action in ipairs(answer.result or {}) do
      if action.kind == 'quickfix' and action.title:find('setup%-pack fix') and not action.title:find('^Fix all') then fix = action end
    end
  end
  if not fix then error('no quick fix offered') end
  out.fix = fix.title
  vim.lsp.util.apply_workspace_edit(fix.edit, 'utf-16')
  if not vim.wait(10000, function() return #vim.diagnostic.get(buf) == 0 end, 50) then error('the finding stayed after the fix') end
  vim.api.nvim_win_set_cursor(0, { tonumber(vim.env.USE_LINE), tonumber(vim.env.USE_COL) })
  vim.lsp.buf.definition()
  if not vim.wait(10000, function() return vim.api.nvim_win_get_cursor(0)[1] ~= tonumber(vim.env.USE_LINE) end, 20) then error('definition did not jump') end
  out.definition = vim.api.nvim_win_get_cursor(0)
  vim.lsp.buf.rename(vim.env.NEW_KEY)
  if not vim.wait(10000, function() return vim.fn.search(vim.env.NEW_KEY, 'nw') > 0 end, 20) then error('rename changed nothing') end
  vim.cmd('write')
  out.written = true
end)
done(ok and vim.NIL or tostring(err))
`;

describe.skipIf(missing)(`the language server in Neovim${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(() => buildServer(), 120_000);

  it('shows the findings, applies a quick fix, jumps to a definition, renames a key and writes the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'setup-pack-nvim-'));
    const file = join(dir, 'pack.json');
    // A won stage at 90%: a warning to see; the rest is the demo pack.
    const text = readText(DEMO_PACK).replace('"probability": 100', '"probability": 90');
    writeFileSync(file, text);
    writeFileSync(join(dir, 'test.lua'), SCRIPT);
    const lines = text.split('\n');
    const use = lines.findIndex((l) => l.includes('"template_id": "tpl-follow-up"'));
    const env = {
      ...process.env,
      NODE: process.execPath,
      BIN,
      RESULT: join(dir, 'result.json'),
      USE_LINE: String(use + 1),
      USE_COL: String(lines[use].indexOf('tpl-follow-up')),
      NEW_KEY: 'tpl-nudge',
      XDG_STATE_HOME: dir,
      XDG_DATA_HOME: dir,
    };
    const run = spawnSync(nvim, ['--headless', '--clean', '-n', file, '-c', 'luafile test.lua'], {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 90_000,
    });
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as {
      error: string | null;
      diagnostics: { code: string; line: number }[];
      fix: string;
      definition: [number, number];
      written?: boolean;
    };
    expect(result.error, `${run.stderr}`).toBeNull();
    expect(result.diagnostics.map((d) => d.code)).toEqual(['pipeline/probability-normalised']);
    expect(result.diagnostics[0].line).toBe(lines.findIndex((l) => l.includes('"probability": 90')) + 1);
    // The jump lands on the template's key.
    expect(lines[result.definition[0] - 1]).toContain('"key": "tpl-follow-up"');
    const written = readFileSync(file, 'utf8');
    expect(written.split('"tpl-nudge"').length - 1).toBe(3);
    expect(written).not.toContain('tpl-follow-up');
    // The fix set the won stage to 100%, so what Neovim wrote validates as the demo pack does.
    expect(result.fix).toBe('Set probability to 100 (setup-pack fix)');
    expect(written).not.toContain('"probability": 90');
    expect(cliFindings(written)).toEqual(cliFindings(readText(DEMO_PACK)));
  });
});
