// Drives extension.ts through a fake `vscode` module (fake-vscode.ts): the
// commands it registers, and — against a real ragd (RAGD_SOCKET and
// RAGD_TEST_VAULT, set by go test ./contrib/editortest) — the status bar
// item, the Quick Pick search, the Related Notes view and context insertion.

import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { RagdClient } from '../client';
import * as fake from './fake-vscode';

fake.install();
// Loaded after install() so that its require('vscode') gets the fake.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const ext: typeof import('../extension') = require('../extension');

async function until<T>(what: string, fn: () => T | undefined | false, ms = 15000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; messages: ${JSON.stringify(fake.state.messages)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Disposable = { dispose(): unknown };

/** lastView is the tree view with id of the last activation. */
function lastView(id: string) {
  const views = fake.state.treeViews.filter((v) => v.id === id);
  assert.ok(views.length > 0, `no view ${id}`);
  return views[views.length - 1];
}

function activate(): Disposable[] {
  const subscriptions: Disposable[] = [];
  ext.activate({ subscriptions } as never);
  return subscriptions;
}

const socket = process.env.RAGD_SOCKET;
const vault = process.env.RAGD_TEST_VAULT;
const daemon = socket && vault ? {} : { skip: 'needs RAGD_SOCKET and RAGD_TEST_VAULT (go test ./contrib/editortest)' };

describe('extension without a daemon', () => {
  let subs: Disposable[] = [];
  before(() => {
    // A socket path where nothing listens.
    fake.state.config = { socket: path.join(os.tmpdir(), `rgx-none-${process.pid}`, 'none.sock') };
    subs = activate();
  });
  after(() => subs.forEach((d) => d.dispose()));

  it('registers every command package.json contributes', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
    for (const c of pkg.contributes.commands) {
      assert.ok(fake.state.commands.has(c.command), `command ${c.command} registered`);
    }
    const views = pkg.contributes.views.explorer.map((v: { id: string }) => v.id);
    assert.deepEqual(
      fake.state.treeViews.map((v) => v.id),
      views,
    );
  });

  it('shows that ragd is off', async () => {
    const item = fake.state.statusItems[fake.state.statusItems.length - 1];
    await until('the status item to show ragd off', () => item.text === '$(circle-slash) ragd');
    assert.match(String(item.tooltip), /not running/);
  });
});

describe('preview', () => {
  it('maps the byte offsets of the matched words to the snippet shown', () => {
    // Byte offsets, as ragd sends them: "Belém" has a two-byte é, "𝄞" four.
    const snippet = 'Belém 𝄞 tram:\nconcentric rings on the leaves';
    const from = Buffer.byteLength('Belém 𝄞 tram:\n');
    const r = {
      id: 'x', vault: 'v', path: 'a.md', abs_path: '/a.md', title: 'T', line_start: 3, line_end: 4, heading: 'H', score: 1,
      text: 'whole text',
      snippet: { text: snippet, line_start: 3, line_end: 4, matches: [[0, 6], [from, from + 10], [from + 11, from + 16]] as [number, number][] },
    };
    const p = ext.preview(r);
    assert.equal(p.text, 'Belém 𝄞 tram: concentric rings on the leaves');
    assert.deepEqual(
      p.highlights.map(([s, e]) => p.text.slice(s, e)),
      ['Belém', 'concentric', 'rings'],
    );
    // No snippet: the text and the result's matches; cut to the width.
    const q = ext.preview({ ...r, snippet: undefined, text: '  Keep 7 daily snapshots and 4 weekly', matches: [[9, 14], [31, 37]] }, 19);
    assert.equal(q.text, 'Keep 7 daily snapsh…');
    assert.deepEqual(q.highlights.map(([s, e]) => q.text.slice(s, e)), ['daily']);
  });
});

describe('extension against ragd', daemon, () => {
  let subs: Disposable[] = [];
  before(() => {
    fake.state.config = { socket };
    fake.state.activeTextEditor = undefined;
    subs = activate();
  });
  after(() => subs.forEach((d) => d.dispose()));

  it('status bar shows the daemon', async () => {
    const item = fake.state.statusItems[fake.state.statusItems.length - 1];
    await until('the status item to show the daemon', () => /notes in/.test(String(item.tooltip)));
    assert.equal(item.text, '$(database) ragd');
    assert.match(String(item.tooltip), /: idle, 4 notes in 1 vault/);
    assert.equal(item.command, 'ragd.showStatus');
  });

  it('search opens the chosen result at its lines', async () => {
    await fake.commands.executeCommand('ragd.search', 'concentric rings blight');
    const qp = fake.state.quickPicks[fake.state.quickPicks.length - 1];
    await until('results in the Quick Pick', () => !qp.busy && qp.items.length > 0 && qp.items[0].result);
    const first = qp.items[0];
    assert.match(first.description, /^garden\/Tomatoes\.md:\d+/);
    assert.equal(first.alwaysShow, true);
    qp.selectedItems = [first];
    qp.accept();
    const shown = await until('the note to open', () => fake.state.shown[fake.state.shown.length - 1]);
    assert.equal(fs.realpathSync(shown.doc.uri.fsPath), fs.realpathSync(path.join(vault!, 'garden', 'Tomatoes.md')));
    assert.equal(shown.opts.selection.start.line, first.result.line_start - 1);
    assert.ok(qp.hidden);
  });

  it('search fills Note Search Results with the matched words highlighted', async () => {
    await fake.commands.executeCommand('ragd.search', 'concentric rings blight');
    const qp = fake.state.quickPicks[fake.state.quickPicks.length - 1];
    await until('results in the Quick Pick', () => !qp.busy && qp.items.length > 0 && qp.items[0].result);
    const view = lastView('ragd.results');
    assert.equal(view.description, 'concentric rings blight');
    const items = view.provider.getChildren().map((r: unknown) => view.provider.getTreeItem(r));
    assert.equal(items.length, qp.items.length);
    const top = items[0];
    assert.match(String(top.description), /^garden\/Tomatoes\.md:\d+/);
    const label = top.label as fake.TreeItemLabel;
    assert.ok(label.highlights && label.highlights.length > 0, `highlights in ${JSON.stringify(label)}`);
    for (const [s, e] of label.highlights) {
      assert.match(label.label.slice(s, e).toLowerCase(), /^(concentric|ring|blight)/);
    }
    assert.equal(qp.items[0].detail, label.label);
    assert.match(String((top.tooltip as fake.MarkdownString).value), /\*\*[Cc]oncentric\*\*/);
    assert.equal(top.command.command, 'ragd.openLocation');
    qp.hide();
  });

  it('Related Notes lists the notes related to the active editor', async () => {
    const compost = path.join(vault!, 'garden', 'Compost.md');
    fake.state.setActiveEditor({ document: fake.document(compost) });
    await fake.commands.executeCommand('ragd.refreshRelated');
    const view = lastView('ragd.related');
    // The editor change also scheduled a refresh (debounced); on a slow
    // machine it may start while the command's request is out and win, so
    // the view is read once it shows this note's list.
    const items = await until('the related notes of Compost.md', () => {
      if (view.description !== 'garden/Compost.md') {
        return undefined;
      }
      return view.provider.getChildren().map((n: unknown) => view.provider.getTreeItem(n));
    });
    const tomatoes = items.find((i: fake.TreeItem) => String(i.description).startsWith('garden/Tomatoes.md'));
    assert.ok(tomatoes, `Tomatoes among ${JSON.stringify(items.map((i: fake.TreeItem) => i.label))}`);
    assert.ok(!items.some((i: fake.TreeItem) => String(i.description).startsWith('garden/Compost.md')));
    assert.equal(tomatoes.command.command, 'ragd.openLocation');
    assert.equal(view.description, 'garden/Compost.md');
    await fake.commands.executeCommand('ragd.openLocation', ...tomatoes.command.arguments);
    const shown = fake.state.shown[fake.state.shown.length - 1];
    assert.equal(fs.realpathSync(shown.doc.uri.fsPath), fs.realpathSync(path.join(vault!, 'garden', 'Tomatoes.md')));
  });

  it('Insert Context inserts the block at the cursor', async () => {
    const inserted: { at: fake.Position; text: string }[] = [];
    const doc = fake.document(path.join(vault!, 'Zeppelin.md'));
    const at = new fake.Position(1, 0);
    fake.state.setActiveEditor({
      document: doc,
      selection: { isEmpty: true, active: at, end: at },
      edit: async (cb: (eb: { insert(p: fake.Position, t: string): void }) => void) => {
        cb({ insert: (p, text) => inserted.push({ at: p, text }) });
        return true;
      },
    });
    fake.state.inputValue = 'concentric rings blight';
    await fake.commands.executeCommand('ragd.insertContext');
    assert.equal(inserted.length, 1, `inserted nothing; messages: ${JSON.stringify(fake.state.messages)}`);
    assert.equal(inserted[0].at, at);
    assert.match(inserted[0].text, /^<retrieved-context/);
    assert.match(inserted[0].text, /garden\/Tomatoes\.md/);
    assert.match(inserted[0].text, /\n$/);
  });
});

// RAGD_TEST_EMBEDDING_SOCKET: a ragd whose embedder holds every document
// back, so that it stays in the embedding state.
const busy = process.env.RAGD_TEST_EMBEDDING_SOCKET;

describe('status bar while chunks wait for vectors', busy ? {} : { skip: 'needs RAGD_TEST_EMBEDDING_SOCKET' }, () => {
  let subs: Disposable[] = [];
  before(() => {
    fake.state.config = { socket: busy };
    subs = activate();
  });
  after(() => subs.forEach((d) => d.dispose()));

  it('shows the embedding backlog, not idle', async () => {
    const st = await new RagdClient({ socketPath: busy }).status();
    assert.equal(st.state, 'embedding');
    const pending = st.vector?.pending ?? 0;
    assert.ok(pending > 0, `a backlog: ${JSON.stringify(st.vector)}`);
    const item = fake.state.statusItems[fake.state.statusItems.length - 1];
    await until('the status item to show the backlog', () => item.text === `$(sync~spin) ragd ${pending}`);
    assert.match(String(item.tooltip), new RegExp(`${pending} chunks waiting for vectors`));
    assert.doesNotMatch(String(item.tooltip), /idle/);
  });
});
