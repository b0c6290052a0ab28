-- ragd.nvim: search a ragd note index from Neovim.
--
--   :Ragd search [query]   pick a result, open the file at the cited line
--   :Ragd similar          notes related to the current buffer
--   :Ragd context [query]  insert a <retrieved-context> block at the cursor
--   :Ragd status           show the daemon's state
--   require('ragd').statusline()
--
-- See :help ragd. Requires Neovim 0.7+.

local client = require('ragd.client')

local M = {}

local uv = vim.uv or vim.loop

local defaults = {
  -- Socket path; nil means $RAGD_SOCKET, then ragd's default path.
  socket = nil,
  -- Results per search, notes per similar.
  k = 20,
  -- Milliseconds to wait for an answer.
  timeout = 10000,
  -- 'auto' (telescope.nvim when installed, else 'list'), 'telescope',
  -- 'list' (a window listing the results) or 'select' (vim.ui.select,
  -- which cannot highlight the matched words).
  picker = 'auto',
  -- Characters of each search result's snippet (the passage around the
  -- matched words) shown in the picker.
  snippet_width = 100,
  -- POST /v1/context options: character budget and style
  -- ('snippets' or 'summary'); nil keeps the daemon's defaults.
  context = { budget = nil, style = nil, k = nil },
  -- How old (ms) the statusline's cached status may get while idle and
  -- while indexing.
  status_interval = 5000,
  status_interval_indexing = 1000,
}

M.config = vim.deepcopy(defaults)

-- setup merges opts into the configuration.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  M._status = nil
  return M
end

-- socket returns the socket path in use.
function M.socket()
  local s = M.config.socket
  if type(s) == 'function' then
    s = s()
  end
  if s and s ~= '' then
    return vim.fn.expand(s)
  end
  return client.default_socket()
end

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'ragd' })
end

local function err(msg)
  notify(msg, vim.log.levels.ERROR)
end

-- request calls cb(err, data) with the decoded answer, on the main loop.
function M.request(method, path, body, cb)
  client.request(M.socket(), method, path, body, M.config.timeout, cb)
end

-- request_sync returns data, err.
function M.request_sync(method, path, body)
  return client.request_sync(M.socket(), method, path, body, M.config.timeout)
end

local function list(v)
  if type(v) ~= 'table' then
    return {}
  end
  return v
end

-- RagdMatch highlights the matched words in the result lists (the
-- 'list' and telescope pickers); link or define it to restyle them.
function M.define_highlights()
  vim.cmd('highlight default link RagdMatch Search')
  vim.cmd('highlight default link RagdLocation Directory')
end

M.define_highlights()

-- preview returns the one-line text shown for search result r (at most
-- max bytes, not counting a final '…') and the byte ranges {start, end}
-- (0-based, end exclusive) of the matched words in it. It is the result's
-- snippet with its matches, else its text with the result's matches.
function M.preview(r, max)
  max = max or 160
  local text, matches = r.text, r.matches
  if type(r.snippet) == 'table' and type(r.snippet.text) == 'string' then
    text, matches = r.snippet.text, r.snippet.matches
  end
  -- One line: line breaks and tabs become spaces, byte for byte, so that
  -- the offsets still hold.
  text = (type(text) == 'string' and text or ''):gsub('[\r\n\t]', ' ')
  local lead = #text:match('^ *')
  text = text:sub(lead + 1)
  local cut = #text
  if cut > max then
    cut = max
    -- Not inside a UTF-8 sequence: back up over continuation bytes.
    while cut > 0 and (text:byte(cut + 1) or 0) >= 0x80 and (text:byte(cut + 1) or 0) < 0xC0 do
      cut = cut - 1
    end
    text = text:sub(1, cut) .. '…'
  end
  local hl = {}
  for _, m in ipairs(list(matches)) do
    local from, to = (m[1] or 0) - lead, (m[2] or 0) - lead
    if from >= 0 and to <= cut and from < to then
      table.insert(hl, { from, to })
    end
  end
  return text, hl
end

-- search_items turns search results into picker items: label is
-- `path:lines  heading  snippet`, location the byte length of its
-- `path:lines` part and highlights the byte ranges of the matched words
-- in label.
function M.search_items(results)
  local items = {}
  for _, r in ipairs(list(results)) do
    local where = r.path .. ':' .. r.line_start
    if r.line_end and r.line_end ~= r.line_start then
      where = where .. '-' .. r.line_end
    end
    local heading = r.heading ~= '' and r.heading or r.title
    local prefix = where .. '  ' .. (heading or '') .. '  '
    local text, hl = M.preview(r, 2 * (M.config.snippet_width or 100))
    for _, h in ipairs(hl) do
      h[1], h[2] = h[1] + #prefix, h[2] + #prefix
    end
    table.insert(items, {
      label = prefix .. text,
      location = #where,
      highlights = hl,
      path = r.path,
      abs_path = r.abs_path,
      line = r.line_start or 1,
      line_end = r.line_end,
      result = r,
    })
  end
  return items
end

-- similar_items turns similar notes into picker items.
function M.similar_items(notes)
  local items = {}
  for _, n in ipairs(list(notes)) do
    -- line_start is 0 when the note as a whole is related (by links).
    local where = n.path
    if (n.line_start or 0) > 0 then
      where = where .. ':' .. n.line_start
    end
    local label = where .. '  ' .. (n.title or '')
    -- The heading path starts with the note's own title: shown once.
    local h, title = n.heading or '', n.title or ''
    if title ~= '' and h == title then
      h = ''
    elseif title ~= '' and h:sub(1, #title + 3) == title .. ' > ' then
      h = h:sub(#title + 4)
    end
    if h ~= '' then
      label = label .. ' > ' .. h
    end
    if n.why and n.why ~= '' then
      label = label .. '  [' .. n.why .. ']'
    end
    table.insert(items, {
      label = label,
      path = n.path,
      abs_path = n.abs_path,
      line = math.max(n.line_start or 1, 1),
      line_end = n.line_end,
      result = n,
    })
  end
  return items
end

-- open edits the item's file with the cursor on its first line.
function M.open(item)
  vim.cmd("normal! m'")
  vim.cmd('edit ' .. vim.fn.fnameescape(item.abs_path))
  local last = vim.api.nvim_buf_line_count(0)
  local line = math.max(1, math.min(item.line or 1, last))
  vim.api.nvim_win_set_cursor(0, { line, 0 })
  vim.cmd('normal! zvzz')
end

local function has_telescope()
  return pcall(require, 'telescope.pickers')
end

-- telescope_entry is the telescope entry of item: its display is the
-- label with the matched words in RagdMatch.
function M.telescope_entry(it)
  return {
    value = it,
    display = function()
      local hl = {}
      if (it.location or 0) > 0 then
        table.insert(hl, { { 0, it.location }, 'RagdLocation' })
      end
      for _, h in ipairs(it.highlights or {}) do
        table.insert(hl, { { h[1], h[2] }, 'RagdMatch' })
      end
      return it.label, hl
    end,
    ordinal = it.label,
    filename = it.abs_path,
    lnum = it.line,
    col = 1,
  }
end

local function telescope_pick(title, items, on_choice)
  local pickers = require('telescope.pickers')
  local finders = require('telescope.finders')
  local conf = require('telescope.config').values
  local actions = require('telescope.actions')
  local action_state = require('telescope.actions.state')
  pickers
    .new({}, {
      prompt_title = title,
      finder = finders.new_table({ results = items, entry_maker = M.telescope_entry }),
      sorter = conf.generic_sorter({}),
      previewer = conf.grep_previewer({}),
      attach_mappings = function(bufnr)
        actions.select_default:replace(function()
          local entry = action_state.get_selected_entry()
          actions.close(bufnr)
          if entry then
            on_choice(entry.value)
          end
        end)
        return true
      end,
    })
    :find()
end

local ns = vim.api.nvim_create_namespace('ragd')
M.namespace = ns

-- list_pick lists items in a window at the bottom, one line each, the
-- matched words in RagdMatch: <CR> opens the item under the cursor in the
-- window the list was opened from, q closes the list.
local function list_pick(title, items, on_choice)
  local from = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_create_buf(false, true)
  local lines = {}
  for i, it in ipairs(items) do
    lines[i] = it.label
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  for i, it in ipairs(items) do
    if (it.location or 0) > 0 then
      vim.api.nvim_buf_add_highlight(buf, ns, 'RagdLocation', i - 1, 0, it.location)
    end
    for _, h in ipairs(it.highlights or {}) do
      vim.api.nvim_buf_add_highlight(buf, ns, 'RagdMatch', i - 1, h[1], h[2])
    end
  end
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'ragd'
  vim.cmd('botright ' .. math.max(1, math.min(#items, 12)) .. 'split')
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.wo[win].wrap = false
  vim.wo[win].cursorline = true
  vim.wo[win].number = false
  vim.wo[win].statusline = title
  local function close()
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
  end
  vim.keymap.set('n', '<CR>', function()
    local it = items[vim.api.nvim_win_get_cursor(win)[1]]
    close()
    if vim.api.nvim_win_is_valid(from) then
      vim.api.nvim_set_current_win(from)
    end
    if it then
      on_choice(it)
    end
  end, { buffer = buf, nowait = true, desc = 'ragd: open this result' })
  vim.keymap.set('n', 'q', close, { buffer = buf, nowait = true, desc = 'ragd: close the list' })
end

-- pick shows items in the configured picker and calls on_choice(item).
function M.pick(title, items, on_choice)
  local kind = M.config.picker
  if kind == 'auto' then
    kind = has_telescope() and 'telescope' or 'list'
  end
  if kind == 'telescope' then
    telescope_pick(title, items, on_choice)
    return
  end
  if kind == 'list' then
    list_pick(title, items, on_choice)
    return
  end
  vim.ui.select(items, {
    prompt = title,
    kind = 'ragd',
    format_item = function(it)
      return it.label
    end,
  }, function(choice)
    if choice then
      on_choice(choice)
    end
  end)
end

local function with_query(query, prompt, fn)
  if query and vim.trim(query) ~= '' then
    fn(vim.trim(query))
    return
  end
  vim.ui.input({ prompt = prompt, default = vim.fn.expand('<cword>') }, function(q)
    if q and vim.trim(q) ~= '' then
      fn(vim.trim(q))
    end
  end)
end

local function ungrounded(what, data)
  local msg = 'ragd: nothing in the notes matches ' .. what
  local sugg = list(data and data.suggestions)
  if #sugg > 0 then
    msg = msg .. '; try: ' .. table.concat(sugg, '; ')
  end
  notify(msg, vim.log.levels.WARN)
end

-- search asks for query and shows the results in the picker; choosing one
-- opens it. on_done(err, items), when given, is called with the items.
function M.search(query, on_done)
  with_query(query, 'ragd search: ', function(q)
    local body = { query = q, k = M.config.k, snippet_width = M.config.snippet_width }
    M.request('POST', '/v1/search', body, function(e, data)
      if e then
        err(e)
        if on_done then
          on_done(e)
        end
        return
      end
      local items = M.search_items(data.results)
      if on_done then
        on_done(nil, items)
      end
      if #items == 0 then
        ungrounded('"' .. q .. '"', data)
        return
      end
      M.pick('ragd: ' .. q, items, M.open)
    end)
  end)
end

-- buffer_path is the absolute path of buffer bufnr (0: current) or nil.
local function buffer_path(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr or 0)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  return vim.fn.fnamemodify(name, ':p')
end

-- similar shows the notes related to the current buffer's file.
function M.similar(on_done)
  local path = buffer_path(0)
  if not path then
    err('ragd: the buffer has no file')
    return
  end
  local function show(e, data)
    if e then
      err(e)
      if on_done then
        on_done(e)
      end
      return
    end
    local items = M.similar_items(data.notes)
    if on_done then
      on_done(nil, items)
    end
    if #items == 0 then
      notify('ragd: no notes related to ' .. (data.path or path))
      return
    end
    M.pick('ragd: related to ' .. (data.path or path), items, M.open)
  end
  M.request('POST', '/v1/similar', { path = path, k = M.config.k }, function(e, data, status)
    -- A vault configured through a symlink knows the file by another
    -- name: retry with the resolved path before giving up.
    local real = uv.fs_realpath(path)
    if e and status == 400 and real and real ~= path then
      M.request('POST', '/v1/similar', { path = real, k = M.config.k }, show)
      return
    end
    show(e, data)
  end)
end

local function split_lines(s)
  local out = {}
  for line in (s .. '\n'):gmatch('([^\n]*)\n') do
    table.insert(out, line)
  end
  return out
end

-- insert_lines puts lines into the current buffer below the cursor line,
-- or in place of it when it is blank.
local function insert_lines(lines)
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local cur = vim.api.nvim_buf_get_lines(0, row - 1, row, false)[1] or ''
  if cur:match('^%s*$') then
    vim.api.nvim_buf_set_lines(0, row - 1, row, false, lines)
  else
    vim.api.nvim_buf_set_lines(0, row, row, false, lines)
    row = row + 1
  end
  vim.api.nvim_win_set_cursor(0, { row, 0 })
end

-- context asks ragd for a <retrieved-context> block for query and inserts
-- it into the current buffer at the cursor line.
function M.context(query, on_done)
  with_query(query, 'ragd context: ', function(q)
    local body = { query = q }
    local c = M.config.context or {}
    body.budget, body.style, body.k = c.budget, c.style, c.k
    local buf, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
    M.request('POST', '/v1/context', body, function(e, data)
      if e then
        err(e)
      elseif not data.context or data.context == '' then
        ungrounded('"' .. q .. '"', data)
      elseif not vim.api.nvim_buf_is_valid(buf) or not vim.bo[buf].modifiable then
        e = 'ragd: the buffer cannot take the context'
        err(e)
      else
        local text = data.context:gsub('\n+$', '')
        if vim.api.nvim_get_current_buf() == buf and vim.api.nvim_get_current_win() == win then
          insert_lines(split_lines(text))
        else
          vim.api.nvim_buf_call(buf, function()
            insert_lines(split_lines(text))
          end)
        end
      end
      if on_done then
        on_done(e, data)
      end
    end)
  end)
end

-- status_text formats a status answer (or an error) for a statusline.
function M.status_text(st, e)
  if e or not st then
    return 'ragd: off'
  end
  if st.state == 'indexing' then
    local p = st.progress
    if p and (p.total or 0) > 0 then
      return string.format('ragd: indexing %d/%d', p.done or 0, p.total)
    end
    return 'ragd: indexing'
  end
  if st.state == 'embedding' then
    -- Searchable by keywords; vectors still to come (paused: see :Ragd status).
    local v = st.vector or {}
    return string.format('ragd: embedding %d%s', v.pending or 0, (v.last_error and v.last_error ~= vim.NIL) and ' (paused)' or '')
  end
  for _, v in ipairs(list(st.vaults)) do
    if v.online == false then
      return 'ragd: idle (' .. v.name .. ' offline)'
    end
  end
  return 'ragd: ' .. (st.state or '?')
end

local function refresh_status()
  local s = M._status
  s.inflight = true
  M.request('GET', '/v1/status', nil, function(e, st)
    s.inflight = false
    s.time = uv.now()
    s.data, s.err = st, e
    local text = M.status_text(st, e)
    local changed = text ~= s.text
    s.text = text
    s.indexing = (not e) and st and (st.state == 'indexing' or st.state == 'embedding')
    if changed then
      pcall(vim.cmd, 'redrawstatus!')
    end
    if s.indexing and not s.timer_armed then
      -- Keep the progress moving without waiting for the next redraw.
      s.timer_armed = true
      vim.defer_fn(function()
        s.timer_armed = false
        pcall(vim.cmd, 'redrawstatus!')
      end, M.config.status_interval_indexing)
    end
  end)
end

-- statusline returns the daemon's state as last seen, and refreshes it in
-- the background when it is older than status_interval. It never blocks.
function M.statusline()
  if not M._status then
    M._status = { text = '', time = -math.huge, inflight = false }
  end
  local s = M._status
  local max_age = s.indexing and M.config.status_interval_indexing or M.config.status_interval
  if not s.inflight and uv.now() - s.time >= max_age then
    refresh_status()
  end
  return s.text
end

-- status echoes the daemon's state.
function M.status()
  M.request('GET', '/v1/status', nil, function(e, st)
    if e then
      err(e)
      return
    end
    local lines = { M.status_text(st) .. '  ' .. (st.version or '') .. '  ' .. M.socket() }
    for _, v in ipairs(list(st.vaults)) do
      table.insert(
        lines,
        string.format(
          '  %s  %s  %d notes, %d chunks, %d failed%s',
          v.name,
          v.path,
          v.documents or 0,
          v.chunks or 0,
          v.failed or 0,
          v.online == false and ' (offline)' or ''
        )
      )
    end
    notify(table.concat(lines, '\n'))
  end)
end

M.subcommands = { 'search', 'similar', 'context', 'status' }

-- command runs :Ragd {sub} [args] (opts as given to a user command).
function M.command(opts)
  local sub, rest = (opts.args or ''):match('^%s*(%S*)%s*(.-)%s*$')
  local query = rest
  if query == '' and opts.range and opts.range > 0 then
    query = table.concat(vim.api.nvim_buf_get_lines(0, opts.line1 - 1, opts.line2, false), ' ')
  end
  if #query > 4096 then
    query = query:sub(1, 4096)
  end
  if sub == 'search' or sub == '' then
    M.search(query)
  elseif sub == 'similar' then
    M.similar()
  elseif sub == 'context' then
    M.context(query)
  elseif sub == 'status' then
    M.status()
  else
    err('ragd: unknown subcommand "' .. sub .. '" (' .. table.concat(M.subcommands, ', ') .. ')')
  end
end

function M.complete(arglead, cmdline)
  if cmdline:match('^%s*%S+%s+%S+%s') then
    return {}
  end
  return vim.tbl_filter(function(s)
    return s:sub(1, #arglead) == arglead
  end, M.subcommands)
end

return M
