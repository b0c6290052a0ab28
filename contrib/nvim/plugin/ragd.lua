-- :Ragd, the entry point of ragd.nvim (the module loads on first use).
if vim.g.loaded_ragd or vim.fn.has('nvim-0.7') == 0 then
  return
end
vim.g.loaded_ragd = true

vim.api.nvim_create_user_command('Ragd', function(opts)
  require('ragd').command(opts)
end, {
  nargs = '*',
  range = true,
  desc = 'ragd: search | similar | context | status',
  complete = function(arglead, cmdline)
    return require('ragd').complete(arglead, cmdline)
  end,
})

-- A colorscheme clears the highlight groups: define RagdMatch again.
vim.api.nvim_create_autocmd('ColorScheme', {
  group = vim.api.nvim_create_augroup('ragd', { clear = true }),
  callback = function()
    require('ragd').define_highlights()
  end,
})
