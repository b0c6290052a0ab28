-- Headless tests of ragd.nvim. Run from contrib/nvim:
--
--   nvim --headless -u NONE -i NONE -n --cmd 'set rtp^=.' -c 'luafile tests/run.lua'
--
-- Exits 0 (:qall!) when every test passes, 1 (:cquit) otherwise. The tests
-- that need a daemon use the one on $RAGD_SOCKET serving the vault in
-- contrib/editortest/testdata/vault, copied to $RAGD_TEST_VAULT; without
-- those variables they are skipped (go test ./contrib/editortest sets them).
-- Works on Neovim 0.7 (no `nvim -l`).

local function log(...)
  io.stderr:write(table.concat({ ... }, ' ') .. '\n')
end

local ok_load, ragd = pcall(require, 'ragd')
if not ok_load then
  log('cannot load ragd:', ragd)
  vim.cmd('cquit')
end
local client = require('ragd.client')
vim.cmd('runtime plugin/ragd.lua')

local socket = os.getenv('RAGD_SOCKET')
local vault = os.getenv('RAGD_TEST_VAULT')
local failures, passed, skipped = {}, 0, 0

-- Messages from the plugin go to the test log instead of the screen.
local notes, errors = {}, {}
vim.notify = function(msg, level)
  table.insert(notes, msg)
  if level == vim.log.levels.ERROR then
    table.insert(errors, msg)
  end
  log('  notify[' .. tostring(level) .. ']:', msg)
end

local function eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(string.format('%s: want %s, got %s', what or 'value', vim.inspect(want), vim.inspect(got)), 2)
  end
end

local function truthy(v, what)
  if not v then
    error((what or 'condition') .. ' is false', 2)
  end
end

-- wait_for waits until cond() holds; an error reported by the plugin
-- meanwhile fails at once.
local function wait_for(what, cond, ms)
  local ok = vim.wait(ms or 15000, function()
    return #errors > 0 or cond()
  end, 10)
  if #errors > 0 then
    error('waiting for ' .. what .. ', the plugin reported: ' .. errors[1], 2)
  end
  if not ok then
    error('timed out waiting for ' .. what, 2)
  end
end

local function file_lines(path, from, to)
  local lines = vim.fn.readfile(path)
  return table.concat(vim.list_slice(lines, from, to), '\n')
end

local function realpath(p)
  return (vim.uv or vim.loop).fs_realpath(p) or p
end

-- stub_select replaces vim.ui.select: it records the items offered and
-- answers with choose(items).
local offered
local function stub_select(choose)
  offered = nil
  vim.ui.select = function(items, opts, on_choice)
    offered = {}
    for _, it in ipairs(items) do
      table.insert(offered, opts.format_item and opts.format_item(it) or tostring(it))
    end
    on_choice(choose(items))
  end
end

local function reset()
  ragd.setup({ picker = 'select', timeout = 20000 })
  vim.cmd('silent! %bwipeout!')
  notes, errors = {}, {}
end

local function test(name, needs_daemon, fn)
  if needs_daemon and not (socket and vault) then
    skipped = skipped + 1
    log('SKIP', name, '(no RAGD_SOCKET / RAGD_TEST_VAULT)')
    return
  end
  reset()
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
    log('PASS', name)
  else
    table.insert(failures, name)
    log('FAIL', name .. ':\n' .. tostring(err))
  end
end

-- Without a daemon --------------------------------------------------------

test('default socket path', false, function()
  local function env(t)
    return function(k)
      return t[k]
    end
  end
  eq('/s/r.sock', client.default_socket(env({ RAGD_SOCKET = '/s/r.sock', XDG_RUNTIME_DIR = '/run/user/5' }), 5))
  eq('/run/user/5/ragd/ragd.sock', client.default_socket(env({ XDG_RUNTIME_DIR = '/run/user/5' }), 5))
  eq('/tmp/ragd-5/ragd.sock', client.default_socket(env({ XDG_RUNTIME_DIR = 'rel' }), 5))
  eq('/tmp/ragd-5/ragd.sock', client.default_socket(env({ RAGD_SOCKET = '' }), 5))
  ragd.setup({ socket = '/x/y.sock' })
  eq('/x/y.sock', ragd.socket(), 'setup{socket}')
end)

test('HTTP request and response parsing', false, function()
  local req = client.build_request('POST', '/v1/search', '{"query":"é"}')
  truthy(req:find('Content-Length: 14\r\n', 1, true), 'byte length of the body: ' .. req)
  truthy(req:find('Ragd-Protocol-Version: 1\r\n', 1, true), 'protocol header')
  truthy(req:find('\r\n\r\n{"query":"é"}$'), 'body after the head')

  local full = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a":"b"}\n'
  local r = client.parse_response(full, false)
  eq(200, r.status)
  eq('{"a":"b"}\n', r.body)
  eq(nil, client.parse_response(full:sub(1, -4), false), 'incomplete body')
  eq(nil, client.parse_response('HTTP/1.1 200 OK\r\nContent-Le', false), 'incomplete head')
  local _, err = client.parse_response(full:sub(1, -4), true)
  truthy(err and err:find('closed'), 'error at EOF: ' .. tostring(err))

  local chunked = 'HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"err\r\n9\r\nor":"x"}\n\r\n0\r\n\r\n'
  eq(nil, client.parse_response(chunked:sub(1, -8), false), 'incomplete chunks')
  r = client.parse_response(chunked, false)
  eq(404, r.status)
  eq('{"error":"x"}\n', r.body)
  eq('abc', client.parse_response('HTTP/1.0 200 OK\r\n\r\nabc', true).body, 'body to EOF')

  local v = client.json_decode('{"results":null,"notes":[{"path":"a.md","heading":null}]}')
  eq(nil, v.results, 'null')
  eq('a.md', v.notes[1].path)
end)

test('not running', false, function()
  ragd.setup({ socket = vim.fn.tempname() .. '/none.sock' })
  local data, err = ragd.request_sync('GET', '/v1/status')
  eq(nil, data)
  truthy(err and err:find('not running', 1, true), 'error says not running: ' .. tostring(err))
  eq('ragd: off', ragd.status_text(nil, err))
end)

test('refuses a socket in a directory others can write', false, function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p', tonumber('700', 8))
  eq(nil, client.check_socket(dir .. '/ragd.sock'), 'a private directory')
  vim.loop.fs_chmod(dir, tonumber('777', 8))
  ragd.setup({ socket = dir .. '/ragd.sock' })
  local data, err = ragd.request_sync('GET', '/v1/status')
  eq(nil, data)
  truthy(err and err:find('writable by others', 1, true), 'error says why: ' .. tostring(err))
  local other = client.check_socket(dir .. '/ragd.sock', client.uid() + 1)
  truthy(other and other:find('belongs to uid', 1, true), 'another owner: ' .. tostring(other))
end)

-- RAGD_TEST_UNSAFE_SOCKET: an impostor listening where another user could
-- have put it (go test ./contrib/editortest sets it and counts what reaches it).
test('never sends a query to an unsafe socket', true, function()
  local unsafe = os.getenv('RAGD_TEST_UNSAFE_SOCKET')
  truthy(unsafe, 'RAGD_TEST_UNSAFE_SOCKET is set')
  ragd.setup({ socket = unsafe })
  local data, err = ragd.request_sync('POST', '/v1/search', { query = 'secret project plans' })
  eq(nil, data)
  truthy(err and err:find('refusing socket', 1, true), 'refused: ' .. tostring(err))
end)

test(':Ragd completion', false, function()
  eq('search', ragd.complete('se', 'Ragd se')[1])
  eq(4, #ragd.complete('', 'Ragd '))
  eq(0, #ragd.complete('', 'Ragd search '))
  eq(2, vim.fn.exists(':Ragd'), ':Ragd defined by plugin/ragd.lua')
end)

test('help file has valid, unique tags', false, function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  vim.fn.writefile(vim.fn.readfile('doc/ragd.txt'), dir .. '/ragd.txt')
  vim.cmd('helptags ' .. vim.fn.fnameescape(dir)) -- errors on duplicate tags
  local tags = vim.fn.readfile(dir .. '/tags')
  local have = {}
  for _, line in ipairs(tags) do
    have[line:match('^[^\t]+')] = true
  end
  for _, tag in ipairs({ ':Ragd', ':Ragd-search', ':Ragd-similar', ':Ragd-context', 'ragd.statusline()', 'ragd-setup', 'ragd-highlights' }) do
    truthy(have[tag], 'tag ' .. tag)
  end
end)

test('status_text says embedding, not idle, while vectors wait', false, function()
  eq('ragd: embedding 22000', ragd.status_text({ state = 'embedding', vector = { pending = 22000 } }))
  eq('ragd: embedding 5 (paused)',
    ragd.status_text({ state = 'embedding', vector = { pending = 5, last_error = 'uselite: model not found' } }))
  eq('ragd: indexing 3/10', ragd.status_text({ state = 'indexing', progress = { done = 3, total = 10 } }))
  eq('ragd: idle', ragd.status_text({ state = 'idle', vaults = {} }))
end)

-- slices returns the parts of s that the byte ranges {from, to} cover.
local function slices(s, ranges)
  local out = {}
  for _, h in ipairs(ranges) do
    table.insert(out, s:sub(h[1] + 1, h[2]))
  end
  return out
end

test('search items highlight the matched words of the snippet', false, function()
  -- Byte offsets, as the daemon sends them: "Belém" has a two-byte é.
  local snippet = 'Belém tram 28:\nconcentric rings on the leaves'
  local from = snippet:find('concentric', 1, true) - 1
  local r = {
    path = 'a.md', line_start = 3, line_end = 4, heading = 'Trips > Lisbon', title = 'Trips',
    text = 'whole text',
    snippet = { text = snippet, line_start = 3, line_end = 4, matches = { { 0, 6 }, { from, from + 10 }, { from + 11, from + 16 } } },
  }
  local it = ragd.search_items({ r })[1]
  eq('a.md:3-4  Trips > Lisbon  Belém tram 28: concentric rings on the leaves', it.label)
  eq({ 'Belém', 'concentric', 'rings' }, slices(it.label, it.highlights))
  eq(#'a.md:3-4', it.location)
  -- The telescope entry shows the same highlights.
  local text, hl = ragd.telescope_entry(it).display()
  eq(it.label, text)
  eq({ { { 0, it.location }, 'RagdLocation' }, { { it.highlights[1][1], it.highlights[1][2] }, 'RagdMatch' } },
    { hl[1], hl[2] })
  -- Without a snippet: the result's text and its matches; a long text is
  -- cut on a character boundary and matches past the cut are dropped.
  local long = string.rep('é', 200) .. ' rings'
  local t2, h2 = ragd.preview({ text = '  ' .. long, matches = { { 2, 4 }, { #long - 3, #long + 2 } } }, 11)
  eq(string.rep('é', 5) .. '…', t2)
  eq({ { 0, 2 } }, h2)
  eq('RagdMatch', vim.fn.synIDattr(vim.fn.hlID('RagdMatch'), 'name'))
end)

test('similar items show the title once', false, function()
  local items = ragd.similar_items({
    { path = 'coffee/niche.md', title = 'Coffee Grinder Niche', heading = 'Coffee Grinder Niche > Notes', line_start = 7, why = 'links' },
    { path = 'tea.md', title = 'Tea', heading = 'Tea', line_start = 0 },
    { path = 'x.md', title = 'X', heading = 'Other > Part', line_start = 2 },
  })
  eq('coffee/niche.md:7  Coffee Grinder Niche > Notes  [links]', items[1].label)
  eq('tea.md  Tea', items[2].label)
  eq('x.md:2  X > Other > Part', items[3].label)
end)

-- Against the daemon ------------------------------------------------------

test('status and statusline', true, function()
  local st, err = ragd.request_sync('GET', '/v1/status')
  eq(nil, err)
  eq('idle', st.state)
  eq(socket, st.socket, 'the socket the daemon reports')
  ragd.setup({ status_interval = 50 })
  local first = ragd.statusline() -- never blocks: '' until the first answer
  eq('string', type(first))
  wait_for('statusline to show idle', function()
    return ragd.statusline() == 'ragd: idle'
  end)
end)

test('statusline shows the embedding backlog', true, function()
  local busy = os.getenv('RAGD_TEST_EMBEDDING_SOCKET')
  truthy(busy, 'RAGD_TEST_EMBEDDING_SOCKET is set')
  ragd.setup({ socket = busy, status_interval = 50, status_interval_indexing = 50 })
  local st, err = ragd.request_sync('GET', '/v1/status')
  eq(nil, err)
  eq('embedding', st.state)
  truthy(st.vector.pending > 0, 'a backlog: ' .. vim.inspect(st.vector))
  wait_for('the statusline to show the backlog', function()
    return ragd.statusline() == 'ragd: embedding ' .. st.vector.pending
  end)
  truthy(ragd._status.indexing, 'refreshed at the indexing interval while embedding')
end)

test(':Ragd search lists the results with the matched words highlighted', true, function()
  ragd.setup({ picker = 'list', timeout = 20000 })
  local want = ragd.request_sync('POST', '/v1/search', { query = 'concentric rings blight', k = 5 }).results[1]
  vim.cmd('Ragd search concentric rings blight')
  wait_for('the result list', function()
    return vim.bo.filetype == 'ragd'
  end)
  local buf = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  truthy(lines[1]:find('^garden/Tomatoes%.md:' .. want.line_start), 'first line: ' .. lines[1])
  local marks = vim.api.nvim_buf_get_extmarks(buf, ragd.namespace, { 0, 0 }, { 0, -1 }, { details = true })
  local words = {}
  for _, m in ipairs(marks) do
    if m[4].hl_group == 'RagdMatch' then
      table.insert(words, lines[1]:sub(m[3] + 1, m[4].end_col):lower())
    end
  end
  truthy(#words > 0, 'highlights on the first line: ' .. vim.inspect(marks))
  for _, w in ipairs(words) do
    truthy(w:find('^concentric') or w:find('^ring') or w:find('^blight'), 'a query word is highlighted: ' .. w)
  end
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  eq(realpath(want.abs_path), realpath(vim.api.nvim_buf_get_name(0)), 'the chosen result is open')
  eq(want.line_start, vim.api.nvim_win_get_cursor(0)[1], 'cursor line')
  eq(1, #vim.api.nvim_list_wins(), 'the list is closed')
end)

test('search: results cite the text', true, function()
  local data, err = ragd.request_sync('POST', '/v1/search', { query = 'concentric rings blight', k = 5 })
  eq(nil, err)
  local top = data.results[1]
  eq('garden/Tomatoes.md', top.path)
  eq(realpath(vault .. '/garden/Tomatoes.md'), realpath(top.abs_path))
  truthy(file_lines(top.abs_path, top.line_start, top.line_end):find('concentric rings', 1, true),
    'lines ' .. top.line_start .. '-' .. top.line_end .. ' hold the text')
end)

test(':Ragd search opens the file at the cited line', true, function()
  local data = ragd.request_sync('POST', '/v1/search', { query = 'concentric rings blight', k = 5 })
  local want = data.results[1]
  stub_select(function(items)
    return items[1]
  end)
  vim.cmd('Ragd search concentric rings blight')
  wait_for('the result to open', function()
    return vim.api.nvim_buf_get_name(0) ~= ''
  end)
  truthy(offered and offered[1]:find('^garden/Tomatoes%.md:' .. want.line_start), 'first item: ' .. vim.inspect(offered))
  eq(realpath(want.abs_path), realpath(vim.api.nvim_buf_get_name(0)), 'buffer name')
  eq(want.line_start, vim.api.nvim_win_get_cursor(0)[1], 'cursor line')
end)

test(':{range}Ragd search takes the query from the lines', true, function()
  vim.cmd('enew')
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'paddle past the', 'Quillmere lighthouse', 'unrelated' })
  stub_select(function(items)
    return items[1]
  end)
  vim.cmd('1,2Ragd search')
  wait_for('the result to open', function()
    return vim.api.nvim_buf_get_name(0) ~= ''
  end)
  local want = ragd.request_sync('POST', '/v1/search', { query = 'paddle past the Quillmere lighthouse' }).results[1]
  eq(realpath(vault .. '/Kayak Trip.md'), realpath(vim.api.nvim_buf_get_name(0)), 'buffer name')
  eq(want.line_start, vim.api.nvim_win_get_cursor(0)[1], 'cursor line')
end)

test(':Ragd status', true, function()
  vim.cmd('Ragd status')
  wait_for('the status message', function()
    return #notes > 0
  end)
  truthy(notes[1]:find('4 notes, ', 1, true), 'counts the notes: ' .. notes[1])
  truthy(notes[1]:find(socket, 1, true), 'names the socket: ' .. notes[1])
end)

test(':Ragd search with telescope-less picker and no results', true, function()
  stub_select(function()
    error('the picker must not open without results')
  end)
  local done = false
  ragd.search('xylophonequartzzz', function()
    done = true
  end)
  wait_for('the answer', function()
    return done
  end)
  truthy(notes[#notes] and notes[#notes]:find('nothing', 1, true), 'a message says nothing matched')
end)

test(':Ragd context inserts the block at the cursor', true, function()
  vim.cmd('enew')
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'Question: what do the rings mean?', '' })
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.cmd('Ragd context concentric rings blight')
  wait_for('the context block', function()
    return vim.api.nvim_buf_line_count(0) > 2
  end)
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local text = table.concat(lines, '\n')
  eq('Question: what do the rings mean?', lines[1], 'the line above is kept')
  truthy(lines[2]:find('<retrieved%-context'), 'the block starts on the cursor line: ' .. lines[2])
  truthy(text:find('garden/Tomatoes.md', 1, true), 'cites the note')
  truthy(text:find('concentric rings', 1, true), 'holds the text')
end)

test(':Ragd similar lists related notes and opens one', true, function()
  vim.cmd('edit ' .. vim.fn.fnameescape(vault .. '/garden/Compost.md'))
  stub_select(function(items)
    for _, it in ipairs(items) do
      if it.path == 'garden/Tomatoes.md' then
        return it
      end
    end
  end)
  vim.cmd('Ragd similar')
  wait_for('a related note to open', function()
    return vim.api.nvim_buf_get_name(0):find('Tomatoes.md', 1, true) ~= nil
  end)
  local seen_self = false
  for _, label in ipairs(offered) do
    if label:find('^garden/Compost%.md') then
      seen_self = true
    end
  end
  truthy(not seen_self, 'the note itself is not related to itself: ' .. vim.inspect(offered))
  -- Each label names its note's title once, after the location.
  local data = ragd.request_sync('POST', '/v1/similar', { path = vault .. '/garden/Compost.md' })
  for _, it in ipairs(ragd.similar_items(data.notes)) do
    local n = it.result
    local where = n.path .. ((n.line_start or 0) > 0 and (':' .. n.line_start) or '')
    local _, count = it.label:sub(#where + 1):gsub(vim.pesc(n.title), '')
    eq(1, count, 'the title once in ' .. it.label)
  end
  eq(realpath(vault .. '/garden/Tomatoes.md'), realpath(vim.api.nvim_buf_get_name(0)))
end)

log(string.format('ragd.nvim tests: %d passed, %d failed, %d skipped', passed, #failures, skipped))
if #failures > 0 then
  log('failed: ' .. table.concat(failures, ', '))
  vim.cmd('cquit')
else
  log('ragd.nvim tests: ok')
  vim.cmd('qall!')
end
