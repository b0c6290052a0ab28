// The VS Code side of ragd: a Quick Pick search whose results also fill
// the Note Search Results view (the matched words highlighted), a Related
// Notes view for the active editor, a command inserting a context block,
// and a status bar item showing the daemon's state and indexing progress.

import * as vscode from 'vscode';
import { EventStream, RagdClient, RagdError, Result, SimilarNote, StatusResponse } from './client';

let client: RagdClient;

function config() {
  return vscode.workspace.getConfiguration('ragd');
}

function makeClient(): RagdClient {
  const socket = config().get<string>('socket', '').trim();
  return new RagdClient({ socketPath: socket || undefined });
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A place in a note: what the search results and related notes share. */
interface Location {
  abs_path: string;
  line_start: number;
  line_end: number;
}

async function openLocation(loc: Location, preview = false): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(loc.abs_path));
  const last = doc.lineCount - 1;
  const start = Math.min(Math.max(loc.line_start - 1, 0), last);
  const end = Math.min(Math.max((loc.line_end || loc.line_start) - 1, start), last);
  const range = new vscode.Range(start, 0, end, doc.lineAt(end).range.end.character);
  const editor = await vscode.window.showTextDocument(doc, { preview, selection: new vscode.Range(range.start, range.start) });
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

/** Characters of passage asked for and shown per search result. */
const SNIPPET_WIDTH = 120;

/**
 * preview is the one-line passage shown for a result — its snippet, else
 * its text — at most max characters, with the [start, end) ranges of the
 * matched words in it, in UTF-16 code units (ragd sends UTF-8 byte
 * offsets).
 */
export function preview(r: Result, max = SNIPPET_WIDTH): { text: string; highlights: [number, number][] } {
  const src = r.snippet?.text ?? r.text ?? '';
  const matches = (r.snippet ? r.snippet.matches : r.matches) ?? [];
  const bytes = Buffer.from(src, 'utf8');
  const units = (b: number) => bytes.subarray(0, b).toString('utf8').length;
  // One line: line breaks and tabs become spaces, unit for unit.
  let text = src.replace(/[\r\n\t]/g, ' ');
  const lead = text.length - text.trimStart().length;
  text = text.slice(lead);
  let cut = text.length;
  if (cut > max) {
    cut = max;
    const c = text.charCodeAt(cut - 1);
    if (c >= 0xd800 && c < 0xdc00) {
      cut--; // not between the halves of a surrogate pair
    }
    text = text.slice(0, cut) + '…';
  }
  const highlights: [number, number][] = [];
  for (const [from, to] of matches) {
    if (from >= 0 && to <= bytes.length && from < to) {
      const s = units(from) - lead;
      const e = units(to) - lead;
      if (s >= 0 && e <= cut) {
        highlights.push([s, e]);
      }
    }
  }
  return { text, highlights };
}

function lines(r: Result): string {
  return r.line_end && r.line_end !== r.line_start ? `${r.line_start}-${r.line_end}` : `${r.line_start}`;
}

interface ResultItem extends vscode.QuickPickItem {
  result?: Result;
}

function resultItem(r: Result): ResultItem {
  return {
    label: r.heading || r.title || r.path,
    description: `${r.path}:${lines(r)}`,
    // A Quick Pick cannot highlight what it did not match itself: the
    // Note Search Results view shows the matched words.
    detail: preview(r).text,
    alwaysShow: true, // ragd ranks; do not let the Quick Pick filter
    result: r,
  };
}

/**
 * The Note Search Results view: the results of the last search, each
 * labelled with its passage, the words that matched highlighted.
 */
class SearchResults implements vscode.TreeDataProvider<Result> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private results: Result[] = [];
  view: vscode.TreeView<Result> | undefined;

  dispose() {
    this.changed.dispose();
  }

  show(query: string, results: Result[]) {
    this.results = results;
    if (this.view) {
      this.view.description = query;
    }
    this.changed.fire();
  }

  getTreeItem(r: Result): vscode.TreeItem {
    const p = preview(r);
    const item = new vscode.TreeItem({ label: p.text, highlights: p.highlights });
    item.description = `${r.path}:${lines(r)}`;
    let md = '';
    let at = 0;
    for (const [s, e] of p.highlights) {
      md += escapeMarkdown(p.text.slice(at, s)) + '**' + escapeMarkdown(p.text.slice(s, e)) + '**';
      at = e;
    }
    md += escapeMarkdown(p.text.slice(at));
    item.tooltip = new vscode.MarkdownString(`**${escapeMarkdown(r.heading || r.title || r.path)}**\n\n${md}`);
    item.iconPath = new vscode.ThemeIcon('search');
    item.resourceUri = vscode.Uri.file(r.abs_path);
    item.command = { command: 'ragd.openLocation', title: 'Open', arguments: [r] };
    return item;
  }

  getChildren(r?: Result): Result[] {
    return r ? [] : this.results;
  }
}

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

/** ragd.search: a Quick Pick that searches as you type. */
async function searchCommand(results: SearchResults, initial?: string): Promise<void> {
  const qp = vscode.window.createQuickPick<ResultItem>();
  qp.placeholder = 'Search your notes (ragd)';
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  const run = async (query: string) => {
    const mine = ++seq;
    if (query.trim() === '') {
      qp.items = [];
      qp.busy = false;
      return;
    }
    qp.busy = true;
    try {
      const resp = await client.search({ query, k: config().get<number>('k', 20), snippet_width: SNIPPET_WIDTH });
      if (mine !== seq) {
        return;
      }
      const found = resp.results ?? [];
      results.show(query, found);
      qp.items = found.length
        ? found.map(resultItem)
        : [{ label: 'No notes match', detail: (resp.suggestions ?? []).join(' · ') || undefined, alwaysShow: true }];
    } catch (err) {
      if (mine === seq) {
        qp.items = [{ label: '$(error) ' + errorMessage(err), alwaysShow: true }];
      }
    } finally {
      if (mine === seq) {
        qp.busy = false;
      }
    }
  };
  qp.onDidChangeValue((v) => {
    if (timer) {
      clearTimeout(timer);
    }
    timer = setTimeout(() => run(v), 150);
  });
  qp.onDidAccept(async () => {
    const item = qp.selectedItems[0];
    if (item?.result) {
      qp.hide();
      try {
        await openLocation(item.result);
      } catch (err) {
        vscode.window.showErrorMessage(`ragd: cannot open ${item.result.path}: ${errorMessage(err)}`);
      }
    }
  });
  qp.onDidHide(() => {
    if (timer) {
      clearTimeout(timer);
    }
    qp.dispose();
  });
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection).slice(0, 4096) : '';
  const query = typeof initial === 'string' ? initial : selected;
  qp.value = query;
  qp.show();
  if (query) {
    run(query);
  }
}

/** ragd.insertContext: inserts a <retrieved-context> block at the cursor. */
async function insertContextCommand(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    vscode.window.showWarningMessage('ragd: open an editor to insert context into');
    return;
  }
  const selected = editor.selection.isEmpty ? '' : editor.document.getText(editor.selection).slice(0, 4096);
  const query = await vscode.window.showInputBox({ prompt: 'Context from your notes about…', value: selected });
  if (!query || !query.trim()) {
    return;
  }
  const budget = config().get<number | null>('context.budget', null);
  const style = config().get<string>('context.style', '');
  try {
    const resp = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'ragd: building context' },
      () =>
        client.context({
          query,
          budget: budget ?? undefined,
          style: style === 'snippets' || style === 'summary' ? style : undefined,
        }),
    );
    if (!resp.context) {
      const hint = (resp.suggestions ?? []).join('; ');
      vscode.window.showInformationMessage(`ragd: nothing in the notes matches "${query}"${hint ? `; try: ${hint}` : ''}`);
      return;
    }
    // After a selection (the query), else at the cursor.
    const at = editor.selection.isEmpty ? editor.selection.active : editor.selection.end;
    const text = (editor.selection.isEmpty ? '' : '\n') + resp.context.replace(/\n*$/, '\n');
    await editor.edit((eb) => eb.insert(at, text));
  } catch (err) {
    vscode.window.showErrorMessage(errorMessage(err));
  }
}

type RelatedNode = { kind: 'note'; note: SimilarNote } | { kind: 'message'; text: string; icon: string };

/** The Related Notes view: POST /v1/similar for the active editor's file. */
class RelatedNotes implements vscode.TreeDataProvider<RelatedNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private nodes: RelatedNode[] = [];
  private file: string | undefined;
  private seq = 0;
  view: vscode.TreeView<RelatedNode> | undefined;

  dispose() {
    this.changed.dispose();
  }

  getTreeItem(node: RelatedNode): vscode.TreeItem {
    if (node.kind === 'message') {
      const item = new vscode.TreeItem(node.text);
      item.iconPath = new vscode.ThemeIcon(node.icon);
      return item;
    }
    const n = node.note;
    const item = new vscode.TreeItem(n.title || n.path);
    item.description = n.heading && n.heading !== n.title ? `${n.path} · ${n.heading}` : n.path;
    item.tooltip = new vscode.MarkdownString(
      `**${n.title}**\n\n\`${n.path}${n.line_start > 0 ? ':' + n.line_start : ''}\`\n\nrelated by ${n.why || '?'} (score ${n.score.toFixed(3)})`,
    );
    item.iconPath = new vscode.ThemeIcon('note');
    item.resourceUri = vscode.Uri.file(n.abs_path);
    item.command = { command: 'ragd.openLocation', title: 'Open', arguments: [n] };
    return item;
  }

  getChildren(node?: RelatedNode): RelatedNode[] {
    return node ? [] : this.nodes;
  }

  /** refresh asks for the notes related to the active editor's file. */
  async refresh(force = false): Promise<void> {
    if (this.view && !this.view.visible && !force) {
      return;
    }
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || doc.uri.scheme !== 'file') {
      if (!this.file) {
        this.show([{ kind: 'message', text: 'Open a note to see related notes', icon: 'info' }]);
      }
      return; // keep the last file's list while another kind of editor is active
    }
    const file = doc.uri.fsPath;
    this.file = file;
    const mine = ++this.seq;
    try {
      const resp = await client.similar({ path: file, k: config().get<number>('k', 20) });
      if (mine !== this.seq) {
        return;
      }
      const notes = resp.notes ?? [];
      this.show(
        notes.length
          ? notes.map((note) => ({ kind: 'note', note }))
          : [{ kind: 'message', text: 'No related notes', icon: 'info' }],
      );
      if (this.view) {
        this.view.description = resp.path;
      }
    } catch (err) {
      if (mine !== this.seq) {
        return;
      }
      const text = err instanceof RagdError && err.status === 400 ? 'Not a note in a ragd vault' : errorMessage(err);
      this.show([{ kind: 'message', text, icon: err instanceof RagdError && err.status === 400 ? 'info' : 'warning' }]);
      if (this.view) {
        this.view.description = undefined;
      }
    }
  }

  private show(nodes: RelatedNode[]) {
    this.nodes = nodes;
    this.changed.fire();
  }
}

/** The status bar item: polls /v1/status and listens to /v1/events. */
class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  private timer: NodeJS.Timeout | undefined;
  private stream: EventStream | undefined;
  private retry: NodeJS.Timeout | undefined;
  private backoff = 2000;
  private disposed = false;
  last: StatusResponse | undefined;

  constructor() {
    this.item.command = 'ragd.showStatus';
    this.item.text = '$(database) ragd';
    this.item.show();
  }

  start() {
    this.refresh();
    this.listen();
  }

  /** restart drops the connection (e.g. after the socket setting changed). */
  restart() {
    this.stream?.close();
    this.stream = undefined;
    if (this.retry) {
      clearTimeout(this.retry);
    }
    this.backoff = 2000;
    this.start();
  }

  private schedule(ms: number) {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    if (!this.disposed) {
      this.timer = setTimeout(() => this.refresh(), ms);
    }
  }

  private inflight = false;

  async refresh(): Promise<void> {
    if (this.inflight) {
      return; // a burst of events needs one status, not one each
    }
    this.inflight = true;
    const idleMs = Math.max(1, config().get<number>('statusInterval', 10)) * 1000;
    try {
      const st = await client.status();
      this.last = st;
      this.render(st);
      this.schedule(st.state === 'indexing' || st.state === 'embedding' ? 1000 : idleMs);
    } catch (err) {
      this.last = undefined;
      this.item.text = '$(circle-slash) ragd';
      this.item.tooltip = errorMessage(err);
      this.schedule(idleMs);
    } finally {
      this.inflight = false;
    }
  }

  private render(st: StatusResponse) {
    const vaults = st.vaults ?? [];
    const docs = vaults.reduce((n, v) => n + v.documents, 0);
    const offline = vaults.filter((v) => !v.online).map((v) => v.name);
    if (st.state === 'indexing') {
      const p = st.progress;
      const pct = p && p.total > 0 ? ` ${Math.floor((100 * p.done) / p.total)}%` : '';
      this.item.text = `$(sync~spin) ragd${pct}`;
      this.item.tooltip = p && p.total > 0 ? `ragd is indexing${p.vault ? ' ' + p.vault : ''}: ${p.done}/${p.total} files` : 'ragd is indexing';
    } else if (st.state === 'embedding') {
      const v = st.vector;
      this.item.text = `$(sync~spin) ragd ${v?.pending ?? 0}`;
      this.item.tooltip =
        `ragd: ${v?.pending ?? 0} chunks waiting for vectors (found by keywords meanwhile)` +
        (v?.last_error ? `; embedding paused: ${v.last_error}` : '');
    } else {
      this.item.text = offline.length ? '$(warning) ragd' : '$(database) ragd';
      this.item.tooltip =
        `ragd ${st.version}: ${st.state}, ${docs} notes in ${vaults.length} vault(s)` +
        (offline.length ? `; offline: ${offline.join(', ')}` : '');
    }
  }

  private listen() {
    if (this.disposed || this.stream) {
      return;
    }
    this.stream = client.events({
      onOpen: () => {
        this.backoff = 2000;
      },
      onEvent: (ev) => {
        if (ev.type === 'run_started' || ev.type === 'run_finished' || ev.type === 'lagged') {
          this.refresh();
        }
      },
      onEnd: (err) => {
        this.stream = undefined;
        if (err && !this.disposed) {
          // ragd is down or restarting: the poll shows it; retry later.
          this.retry = setTimeout(() => this.listen(), this.backoff);
          this.backoff = Math.min(this.backoff * 2, 60000);
        }
      },
    });
  }

  dispose() {
    this.disposed = true;
    if (this.timer) {
      clearTimeout(this.timer);
    }
    if (this.retry) {
      clearTimeout(this.retry);
    }
    this.stream?.close();
    this.item.dispose();
  }
}

async function showStatusCommand(status: StatusItem): Promise<void> {
  try {
    const st = await client.status();
    const vaults = (st.vaults ?? [])
      .map((v) => `${v.name}: ${v.documents} notes, ${v.chunks} chunks, ${v.failed} failed${v.online ? '' : ' (offline)'}`)
      .join('; ');
    vscode.window.showInformationMessage(`ragd ${st.version} is ${st.state} on ${client.socketPath}. ${vaults}`);
  } catch (err) {
    vscode.window.showErrorMessage(errorMessage(err));
  }
  status.refresh();
}

export function activate(context: vscode.ExtensionContext): void {
  client = makeClient();
  const related = new RelatedNotes();
  const view = vscode.window.createTreeView('ragd.related', { treeDataProvider: related });
  related.view = view;
  const results = new SearchResults();
  const resultsView = vscode.window.createTreeView('ragd.results', { treeDataProvider: results });
  results.view = resultsView;
  const status = new StatusItem();
  let debounce: NodeJS.Timeout | undefined;
  const refreshRelated = () => {
    if (debounce) {
      clearTimeout(debounce);
    }
    debounce = setTimeout(() => related.refresh(), 250);
  };

  context.subscriptions.push(
    related,
    view,
    results,
    resultsView,
    status,
    vscode.commands.registerCommand('ragd.search', (query?: string) => searchCommand(results, query)),
    vscode.commands.registerCommand('ragd.insertContext', insertContextCommand),
    vscode.commands.registerCommand('ragd.refreshRelated', () => related.refresh(true)),
    vscode.commands.registerCommand('ragd.showStatus', () => showStatusCommand(status)),
    vscode.commands.registerCommand('ragd.openLocation', (loc: Location) =>
      openLocation(loc).then(undefined, (err) => vscode.window.showErrorMessage(errorMessage(err))),
    ),
    vscode.window.onDidChangeActiveTextEditor(refreshRelated),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (doc === vscode.window.activeTextEditor?.document) {
        refreshRelated();
      }
    }),
    view.onDidChangeVisibility((e) => {
      if (e.visible) {
        related.refresh();
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ragd.socket')) {
        client = makeClient();
        status.restart();
        related.refresh();
      }
    }),
    { dispose: () => debounce && clearTimeout(debounce) },
  );
  status.start();
  related.refresh();
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
