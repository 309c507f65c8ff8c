-- Drives `kumite lsp` from Neovim's own LSP client (headless), as tests/suite/editor_clients.rs runs
-- it: KUMITE is the binary, KMT_FILE a rule file with a typo on line 2 and 体力 on line 3,
-- OUT where the findings go, one per line.
local out = {}
local function log(s) table.insert(out, s) end
local file = os.getenv('KMT_FILE')
vim.cmd('edit ' .. file)
local client_id = vim.lsp.start_client({
  name = 'kumite',
  cmd = { os.getenv('KUMITE'), 'lsp' },
  root_dir = vim.fn.fnamemodify(file, ':h'),
})
vim.lsp.buf_attach_client(0, client_id)
vim.wait(10000, function() return #vim.diagnostic.get(0) > 0 end, 50)
for _, d in ipairs(vim.diagnostic.get(0)) do
  log(string.format('diag %d %s', d.lnum + 1, d.code or '?'))
end
local client = vim.lsp.get_client_by_id(client_id)
local function req(method, params)
  local r = client.request_sync(method, params, 5000, 0)
  return r and r.result
end
local td = { uri = vim.uri_from_fname(file) }
local at = { line = 2, character = 2 }
local h = req('textDocument/hover', { textDocument = td, position = at })
log('hover ' .. (h and h.contents.value:gsub('\n', ' ') or 'nil'))
local c = req('textDocument/completion', { textDocument = td, position = { line = 1, character = 1 } })
log('completion ' .. ((c and (c.items or c)[1] or {}).label or 'nil'))
local def = req('textDocument/definition', { textDocument = td, position = at })
log('definition ' .. (def and (def.range.start.line + 1) or 'nil'))
local ren = req('textDocument/rename', { textDocument = td, position = at, newName = 'HP' })
local n = 0
for _, edits in pairs((ren or {}).changes or {}) do n = n + #edits end
log('rename ' .. n)
local acts = req('textDocument/codeAction', {
  textDocument = td,
  range = { start = { line = 1, character = 0 }, ['end'] = { line = 1, character = 20 } },
  context = { diagnostics = {} },
}) or {}
log('action ' .. (acts[1] and acts[1].title or 'none'))
if acts[1] then
  vim.lsp.util.apply_workspace_edit(acts[1].edit, 'utf-16')
end
log('fixed ' .. vim.api.nvim_buf_get_lines(0, 1, 2, false)[1])
vim.fn.writefile(out, os.getenv('OUT'))
vim.cmd('qa!')
