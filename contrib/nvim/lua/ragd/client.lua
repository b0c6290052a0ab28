-- HTTP/1.1 + JSON over ragd's Unix socket, with nothing but libuv pipes.
--
-- Works on Neovim 0.7+ (vim.loop; vim.uv when present). Each request opens
-- its own connection, sends `Connection: close`, and is complete when the
-- body holds Content-Length bytes (ragd sends Content-Length on every
-- answer but /v1/events); chunked bodies and bodies ended by EOF are
-- handled too.

local M = {}

local uv = vim.uv or vim.loop

M.PROTOCOL_VERSION = 1

-- default_socket returns the socket ragd listens on by default:
-- $RAGD_SOCKET, else $XDG_RUNTIME_DIR/ragd/ragd.sock (when absolute), else
-- /tmp/ragd-<uid>/ragd.sock. getenv and uid may be given for tests.
function M.default_socket(getenv, uid)
  getenv = getenv or os.getenv
  local s = getenv('RAGD_SOCKET')
  if s and s ~= '' then
    return s
  end
  local xdg = getenv('XDG_RUNTIME_DIR')
  if xdg and xdg:sub(1, 1) == '/' then
    return xdg .. '/ragd/ragd.sock'
  end
  return '/tmp/ragd-' .. tostring(uid or M.uid()) .. '/ragd.sock'
end

local my_uid
-- uid returns the user's uid.
function M.uid()
  if my_uid == nil then
    my_uid = uv.getuid and uv.getuid() or tonumber(vim.fn.system({ 'id', '-u' }))
  end
  return my_uid
end

-- writable_by_others reports whether a file mode has the group or other
-- write bit (0o022).
local function writable_by_others(mode)
  return math.floor(mode / 16) % 2 == 1 or math.floor(mode / 2) % 2 == 1
end

-- check_socket refuses a socket another user could control, as ragctl does:
-- its directory must belong to the user and be writable by nobody else, and
-- the socket itself must be the user's. It returns nil when the socket is
-- safe (or missing: connecting then says ragd is not running), else the
-- reason. (Lua cannot read the listener's peer credentials; the directory
-- check is what keeps others from replacing the socket.)
function M.check_socket(socket, uid)
  uid = uid or M.uid()
  local function refuse(path, why)
    return 'refusing socket ' .. path .. ': ' .. why .. '; another user could impersonate ragd there'
  end
  local dir = socket:match('^(.*)/[^/]*$')
  if dir == nil then
    dir = '.'
  elseif dir == '' then
    dir = '/'
  end
  local st = uv.fs_stat(dir)
  if st then
    if st.type ~= 'directory' then
      return refuse(dir, "the socket's directory is not a directory")
    end
    if st.uid ~= uid then
      return refuse(dir, "the socket's directory belongs to uid " .. st.uid .. ', not to you (uid ' .. uid .. ')')
    end
    if writable_by_others(st.mode) then
      return refuse(dir, "the socket's directory is writable by others")
    end
  end
  st = uv.fs_stat(socket)
  if st then
    if st.type ~= 'socket' then
      return refuse(socket, 'it is not a socket')
    end
    if st.uid ~= uid then
      return refuse(socket, 'it belongs to uid ' .. st.uid .. ', not to you (uid ' .. uid .. ')')
    end
  end
  return nil
end

-- build_request returns the bytes of one HTTP request.
function M.build_request(method, path, body)
  local lines = {
    method .. ' ' .. path .. ' HTTP/1.1',
    'Host: ragd',
    'User-Agent: ragd.nvim',
    'Accept: application/json',
    'Ragd-Protocol-Version: ' .. M.PROTOCOL_VERSION,
    'Connection: close',
  }
  body = body or ''
  if body ~= '' or method == 'POST' then
    table.insert(lines, 'Content-Type: application/json')
    table.insert(lines, 'Content-Length: ' .. #body)
  end
  return table.concat(lines, '\r\n') .. '\r\n\r\n' .. body
end

-- dechunk decodes a chunked body; nil when it is not complete yet.
local function dechunk(s)
  local out, pos = {}, 1
  while true do
    local eol = s:find('\r\n', pos, true)
    if not eol then
      return nil
    end
    local size = tonumber(s:sub(pos, eol - 1):match('^%s*(%x+)'), 16)
    if not size then
      return nil, 'bad chunk size'
    end
    if size == 0 then
      return table.concat(out)
    end
    local first = eol + 2
    if #s < first + size + 1 then
      return nil
    end
    table.insert(out, s:sub(first, first + size - 1))
    pos = first + size + 2
  end
end

-- parse_response parses the bytes received so far. It returns the response
-- {status=, headers=, body=} once complete, nil while more is needed, or
-- nil and an error. eof says the peer closed the connection.
function M.parse_response(buf, eof)
  local head_end = buf:find('\r\n\r\n', 1, true)
  if not head_end then
    if eof then
      return nil, 'connection closed before a complete answer'
    end
    return nil
  end
  local head = buf:sub(1, head_end - 1)
  local status = tonumber(head:match('^HTTP/%d%.%d (%d%d%d)'))
  if not status then
    return nil, 'not an HTTP answer: ' .. head:sub(1, 40)
  end
  local headers = {}
  for name, value in head:gmatch('\r\n([^:\r\n]+):[ \t]*([^\r\n]*)') do
    headers[name:lower()] = value
  end
  local rest = buf:sub(head_end + 4)
  local te = headers['transfer-encoding']
  if te and te:lower():find('chunked', 1, true) then
    local body, err = dechunk(rest)
    if err then
      return nil, err
    end
    if not body then
      if eof then
        return nil, 'connection closed inside a chunked body'
      end
      return nil
    end
    return { status = status, headers = headers, body = body }
  end
  local cl = tonumber(headers['content-length'])
  if cl then
    if #rest >= cl then
      return { status = status, headers = headers, body = rest:sub(1, cl) }
    end
    if eof then
      return nil, 'connection closed after ' .. #rest .. ' of ' .. cl .. ' body bytes'
    end
    return nil
  end
  if eof or status == 204 or status == 304 then
    return { status = status, headers = headers, body = rest }
  end
  return nil
end

-- null_to_nil turns vim.NIL (JSON null) into nil, recursively.
local function null_to_nil(v)
  if v == vim.NIL then
    return nil
  end
  if type(v) == 'table' then
    for k, x in pairs(v) do
      v[k] = null_to_nil(x)
    end
  end
  return v
end

function M.json_decode(s)
  local ok, v = pcall(vim.json.decode, s)
  if not ok then
    return nil, 'invalid JSON from ragd: ' .. tostring(v)
  end
  return null_to_nil(v)
end

function M.json_encode(v)
  return vim.json.encode(v)
end

local function connect_error(socket, err)
  err = tostring(err)
  if err:find('ENOENT', 1, true) or err:find('ECONNREFUSED', 1, true) then
    return 'ragd is not running (nothing answers on ' .. socket .. ')'
  end
  return 'cannot connect to ragd on ' .. socket .. ': ' .. err
end

-- raw sends one request and calls cb(err, response) on the main loop with
-- the parsed, undecoded response.
function M.raw(socket, method, path, body, timeout_ms, cb)
  local unsafe = M.check_socket(socket)
  if unsafe then
    vim.schedule(function()
      cb(unsafe)
    end)
    return
  end
  local pipe = uv.new_pipe(false)
  local timer = uv.new_timer()
  local done = false
  local buf = ''
  local function finish(err, resp)
    if done then
      return
    end
    done = true
    timer:stop()
    if not timer:is_closing() then
      timer:close()
    end
    if not pipe:is_closing() then
      pipe:close()
    end
    vim.schedule(function()
      cb(err, resp)
    end)
  end
  timer:start(timeout_ms, 0, function()
    finish('ragd did not answer ' .. method .. ' ' .. path .. ' within ' .. timeout_ms .. ' ms')
  end)
  local ok, perr = pcall(pipe.connect, pipe, socket, function(err)
    if err then
      finish(connect_error(socket, err))
      return
    end
    pipe:write(M.build_request(method, path, body), function(werr)
      if werr then
        finish('cannot send to ragd: ' .. tostring(werr))
      end
    end)
    pipe:read_start(function(rerr, data)
      if rerr then
        finish('cannot read from ragd: ' .. tostring(rerr))
        return
      end
      if data then
        buf = buf .. data
      end
      local resp, e = M.parse_response(buf, data == nil)
      if e then
        finish(e)
      elseif resp then
        finish(nil, resp)
      end
    end)
  end)
  if not ok then
    finish(connect_error(socket, perr))
  end
end

-- request sends method path with the table body (JSON-encoded) and calls
-- cb(err, decoded) on the main loop. Error answers become err, with the
-- daemon's message.
function M.request(socket, method, path, body, timeout_ms, cb)
  local payload = nil
  if body ~= nil then
    payload = M.json_encode(body)
  end
  M.raw(socket, method, path, payload, timeout_ms, function(err, resp)
    if err then
      cb(err)
      return
    end
    local data, derr = M.json_decode(resp.body)
    if resp.status >= 400 then
      local msg = type(data) == 'table' and data.error or vim.trim(resp.body)
      cb('ragd: ' .. tostring(msg) .. ' (HTTP ' .. resp.status .. ')', nil, resp.status)
      return
    end
    if derr then
      cb(derr)
      return
    end
    cb(nil, data, resp.status)
  end)
end

-- request_sync is request that waits (processing events) for the answer.
-- It returns decoded, err.
function M.request_sync(socket, method, path, body, timeout_ms)
  local done, res, rerr = false, nil, nil
  M.request(socket, method, path, body, timeout_ms, function(err, data)
    done, res, rerr = true, data, err
  end)
  vim.wait(timeout_ms + 1000, function()
    return done
  end, 5)
  if not done then
    return nil, 'ragd did not answer ' .. method .. ' ' .. path
  end
  return res, rerr
end

return M
