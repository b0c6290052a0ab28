'use strict';
// Org-mode to Markdown, one output line per input line, so that the line
// numbers ragd cites in the Markdown are the line numbers of the .org file.

const LINK = /\[\[([^\]]+)\](?:\[([^\]]*)\])?\]/g;
const CODE = /(^|[\s\-('"{])([=~])([^\s=~](?:[^\n]*?[^\s])?)\2(?=$|[\s\-.,:!?;'")}\[])/g;
const EMPHASIS = /(^|[\s\-('"{])([*/+])([^\s*/+](?:[^\n]*?[^\s])?)\2(?=$|[\s\-.,:!?;'")}\[])/g;
const MARKDOWN_EMPHASIS = { '*': '**', '/': '*', '+': '~~' };

// inline converts links, code and emphasis within one line.
function inline(s) {
  const kept = [];
  const keep = (x) => `\u0000${kept.push(x) - 1}\u0000`;
  s = s.replace(LINK, (_, target, desc) => {
    target = target.replace(/^file:/, '');
    if (target.startsWith('*') || target.startsWith('#')) {
      // A link to a heading or custom id inside the file: keep its text.
      return keep(desc || target.replace(/^[*#]/, ''));
    }
    if (!desc && /^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
      return keep(`<${target}>`);
    }
    return keep(`[${desc || target}](${target.replace(/ /g, '%20')})`);
  });
  s = s.replace(CODE, (_, pre, __, body) => pre + keep('`' + body + '`'));
  s = s.replace(EMPHASIS, (_, pre, mark, body) => {
    const md = MARKDOWN_EMPHASIS[mark];
    return pre + md + body + md;
  });
  return s.replace(/\u0000(\d+)\u0000/g, (_, i) => kept[Number(i)]);
}

const HEADING = /^(\*+)\s+(.*?)\s*$/;
const TAGS = /\s+(:(?:[\w@#%]+:)+)\s*$/;
const TODO = /^(TODO|NEXT|WAIT|WAITING|DONE|CANCELLED|CANCELED)\s+/;
const PRIORITY = /^\[#[A-Z0-9]\]\s+/;

/**
 * Converts Org text to Markdown.
 * @param {string} src the .org file
 * @param {{stripTodo?: boolean}} [opts]
 * @returns {{text: string, title: string, metadata: Object<string,string>}}
 */
function orgToMarkdown(src, opts = {}) {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const out = [];
  const metadata = {};
  const tags = new Set();
  let title = '';
  let block = null; // {kind, close}
  let drawer = false;
  let m;

  for (const line of lines) {
    if (block) {
      m = line.match(/^\s*#\+end_(\w+)/i);
      if (m && m[1].toLowerCase() === block.kind) {
        out.push(block.close);
        block = null;
      } else if (block.kind === 'src' || block.kind === 'example') {
        out.push(line);
      } else if (block.kind === 'quote') {
        out.push(line.trim() === '' ? '>' : '> ' + inline(line.trim()));
      } else {
        out.push(inline(line));
      }
      continue;
    }
    if (drawer) {
      if (/^\s*:END:\s*$/i.test(line)) drawer = false;
      out.push('');
      continue;
    }
    if (/^\s*:[A-Za-z][\w-]*:\s*$/.test(line)) { // :PROPERTIES:, :LOGBOOK:, ...
      drawer = !/^\s*:END:/i.test(line);
      out.push('');
      continue;
    }
    if ((m = line.match(/^\s*#\+begin_(\w+)\s*(.*)$/i))) {
      const kind = m[1].toLowerCase();
      if (kind === 'src') {
        out.push('```' + (m[2].split(/\s+/)[0] || ''));
        block = { kind, close: '```' };
      } else if (kind === 'example') {
        out.push('```');
        block = { kind, close: '```' };
      } else {
        out.push('');
        block = { kind, close: '' };
      }
      continue;
    }
    if ((m = line.match(/^\s*#\+(\w+):\s*(.*?)\s*$/))) {
      const key = m[1].toLowerCase();
      if (key === 'title') {
        title = title ? `${title} ${m[2]}` : m[2];
      } else if (m[2] !== '') {
        metadata[key] = metadata[key] ? `${metadata[key]} ${m[2]}` : m[2];
      }
      out.push('');
      continue;
    }
    if (/^\s*#(\s|\+|$)/.test(line)) { // a comment or another keyword line
      out.push('');
      continue;
    }
    if ((m = line.match(HEADING))) {
      let text = m[2];
      const t = text.match(TAGS);
      if (t) {
        t[1].split(':').filter(Boolean).forEach((x) => tags.add(x));
        text = text.slice(0, t.index);
      }
      if (opts.stripTodo) text = text.replace(TODO, '');
      text = text.replace(PRIORITY, '');
      out.push('#'.repeat(Math.min(m[1].length, 6)) + ' ' + inline(text));
      continue;
    }
    if ((m = line.match(/^(\s*)[-+]\s+(.*)$/)) || (m = line.match(/^(\s+)\*\s+(.*)$/))) {
      out.push(`${m[1]}- ${inline(m[2])}`);
      continue;
    }
    if ((m = line.match(/^(\s*)(\d+)[.)]\s+(.*)$/))) {
      out.push(`${m[1]}${m[2]}. ${inline(m[3])}`);
      continue;
    }
    if (/^\s*\|[-+|]+\|?\s*$/.test(line) && line.includes('-')) { // table rule
      out.push(line.replace(/\+/g, '|'));
      continue;
    }
    if (/^\s*-{5,}\s*$/.test(line)) {
      out.push('---');
      continue;
    }
    if ((m = line.match(/^(\s*):(?: (.*))?$/))) { // fixed-width line
      out.push(m[2] ? `${m[1]}\`${m[2]}\`` : '');
      continue;
    }
    out.push(inline(line));
  }
  if (tags.size > 0) metadata.tags = [...tags].join(',');
  if (metadata.filetags) {
    metadata.filetags = metadata.filetags.split(':').filter(Boolean).join(',');
  }
  return { text: out.join('\n'), title: title.trim(), metadata };
}

module.exports = { orgToMarkdown, inline };
