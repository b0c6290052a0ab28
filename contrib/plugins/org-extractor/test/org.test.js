'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { orgToMarkdown, inline } = require('../org');

test('headings, title and keywords', () => {
  const src = [
    '#+TITLE: Garden notes',
    '#+AUTHOR: Ada',
    '#+FILETAGS: :garden:food:',
    '',
    '* TODO Tomatoes :veg:summer:',
    '** [#A] Watering',
    'Water *deeply* twice a /week/.',
    ':PROPERTIES:',
    ':ID: 1234',
    ':END:',
    '',
  ].join('\n');
  const { text, title, metadata } = orgToMarkdown(src);
  const lines = text.split('\n');
  assert.strictEqual(lines.length, src.split('\n').length);
  assert.strictEqual(title, 'Garden notes');
  assert.deepStrictEqual(metadata, { author: 'Ada', filetags: 'garden,food', tags: 'veg,summer' });
  assert.strictEqual(lines[4], '# TODO Tomatoes');
  assert.strictEqual(lines[5], '## Watering');
  assert.strictEqual(lines[6], 'Water **deeply** twice a *week*.');
  assert.deepStrictEqual(lines.slice(7, 10), ['', '', '']);
  assert.strictEqual(orgToMarkdown('* TODO Tomatoes', { stripTodo: true }).text, '# Tomatoes');
});

test('blocks, lists and tables', () => {
  const src = [
    '#+BEGIN_SRC python :results output',
    'x = *y* * 2',
    '#+END_SRC',
    '#+begin_quote',
    'To be /or/ not',
    '#+end_quote',
    '- one',
    '+ two',
    '  * three',
    '1) first',
    '| a | b |',
    '|---+---|',
    '# a comment',
    ': fixed width',
    '-----',
  ].join('\n');
  const lines = orgToMarkdown(src).text.split('\n');
  assert.deepStrictEqual(lines, [
    '```python',
    'x = *y* * 2',
    '```',
    '',
    '> To be *or* not',
    '',
    '- one',
    '- two',
    '  - three',
    '1. first',
    '| a | b |',
    '|---|---|',
    '',
    '`fixed width`',
    '---',
  ]);
});

test('inline markup and links', () => {
  assert.strictEqual(inline('see [[https://orgmode.org][Org]] and [[https://example.com]]'),
    'see [Org](https://orgmode.org) and <https://example.com>');
  assert.strictEqual(inline('[[file:other notes.org][other]]'), '[other](other%20notes.org)');
  assert.strictEqual(inline('[[*Some heading]]'), 'Some heading');
  assert.strictEqual(inline('use =git status= or ~ls -l~'), 'use `git status` or `ls -l`');
  assert.strictEqual(inline('a +gone+ word, 3 * 4 / 2'), 'a ~~gone~~ word, 3 * 4 / 2');
  assert.strictEqual(inline('=*not bold*='), '`*not bold*`');
  assert.strictEqual(inline('path/to/file and /usr/bin'), 'path/to/file and /usr/bin');
});
