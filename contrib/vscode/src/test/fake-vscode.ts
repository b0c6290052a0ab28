// A stand-in for the parts of the `vscode` API the extension uses, so that
// extension.ts can be activated and driven under `node --test`. It records
// what the extension does in `state`. install() makes require('vscode')
// return it.

import * as fs from 'fs';

/* eslint-disable @typescript-eslint/no-explicit-any */

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e?: T) {
    for (const l of [...this.listeners]) {
      l(e as T);
    }
  }
  dispose() {
    this.listeners = [];
  }
}

export class Position {
  constructor(readonly line: number, readonly character: number) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    if (typeof a === 'number') {
      this.start = new Position(a, b as number);
      this.end = new Position(c as number, d as number);
    } else {
      this.start = a;
      this.end = b as Position;
    }
  }
}

export class TreeItem {
  description?: string;
  tooltip?: unknown;
  iconPath?: unknown;
  resourceUri?: unknown;
  command?: { command: string; arguments?: unknown[] };
  constructor(readonly label: string | TreeItemLabel) {}
}

export interface TreeItemLabel {
  label: string;
  highlights?: [number, number][];
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export class MarkdownString {
  constructor(readonly value: string) {}
}

export const Uri = {
  file: (p: string) => ({ scheme: 'file', fsPath: p, path: p }),
};

export const StatusBarAlignment = { Left: 1, Right: 2 };
export const TextEditorRevealType = { Default: 0, InCenter: 1, InCenterIfOutsideViewport: 2, AtTop: 3 };
export const ProgressLocation = { SourceControl: 1, Window: 10, Notification: 15 };

export interface FakeDocument {
  uri: { scheme: string; fsPath: string };
  lineCount: number;
  lineAt(n: number): { range: { end: Position } };
  getText(r?: unknown): string;
}

export function document(path: string): FakeDocument {
  const lines = fs.readFileSync(path, 'utf8').split('\n');
  return {
    uri: Uri.file(path),
    lineCount: lines.length,
    lineAt: (n: number) => ({ range: { end: new Position(n, lines[n].length) } }),
    getText: () => lines.join('\n'),
  };
}

export interface FakeQuickPick {
  items: any[];
  value: string;
  busy: boolean;
  selectedItems: any[];
  placeholder: string;
  accept(): void;
  hide(): void;
  hidden: boolean;
}

const activeEditorChanged = new EventEmitter<unknown>();

export const state = {
  commands: new Map<string, (...args: any[]) => any>(),
  statusItems: [] as { text: string; tooltip: unknown; command: string }[],
  treeViews: [] as { id: string; provider: any; visible: boolean; description?: string }[],
  quickPicks: [] as FakeQuickPick[],
  shown: [] as { doc: FakeDocument; opts: any }[],
  messages: [] as string[],
  config: {} as Record<string, unknown>,
  inputValue: undefined as string | undefined,
  activeTextEditor: undefined as any,
  setActiveEditor(editor: any) {
    this.activeTextEditor = editor;
    activeEditorChanged.fire(editor);
  },
};

const noEvent = new EventEmitter<any>().event;

export const window = {
  get activeTextEditor() {
    return state.activeTextEditor;
  },
  onDidChangeActiveTextEditor: activeEditorChanged.event,
  createStatusBarItem: () => {
    const item = { text: '', tooltip: undefined as unknown, command: '', show() {}, hide() {}, dispose() {} };
    state.statusItems.push(item);
    return item;
  },
  createTreeView: (id: string, opts: { treeDataProvider: any }) => {
    const vis = new EventEmitter<{ visible: boolean }>();
    const view = { id, provider: opts.treeDataProvider, visible: true, description: undefined, onDidChangeVisibility: vis.event, dispose() {} };
    state.treeViews.push(view);
    return view;
  },
  createQuickPick: () => {
    const change = new EventEmitter<string>();
    const accept = new EventEmitter<void>();
    const hide = new EventEmitter<void>();
    const qp = {
      items: [] as any[],
      value: '',
      busy: false,
      selectedItems: [] as any[],
      placeholder: '',
      matchOnDescription: true,
      matchOnDetail: true,
      hidden: false,
      onDidChangeValue: change.event,
      onDidAccept: accept.event,
      onDidHide: hide.event,
      show() {},
      hide() {
        qp.hidden = true;
        hide.fire();
      },
      dispose() {},
      accept: () => accept.fire(),
      type: (v: string) => {
        qp.value = v;
        change.fire(v);
      },
    };
    state.quickPicks.push(qp);
    return qp;
  },
  showTextDocument: async (doc: FakeDocument, opts: any) => {
    state.shown.push({ doc, opts });
    const editor = { document: doc, selection: opts?.selection, revealRange() {} };
    state.setActiveEditor(editor);
    return editor;
  },
  showInformationMessage: (m: string) => state.messages.push(m),
  showWarningMessage: (m: string) => state.messages.push(m),
  showErrorMessage: (m: string) => state.messages.push(m),
  showInputBox: async () => state.inputValue,
  withProgress: (_opts: unknown, fn: () => unknown) => fn(),
};

export const workspace = {
  getConfiguration: () => ({
    get: (key: string, dflt?: unknown) => (key in state.config ? state.config[key] : dflt),
  }),
  openTextDocument: async (uri: { fsPath: string }) => document(uri.fsPath),
  onDidSaveTextDocument: noEvent,
  onDidChangeConfiguration: noEvent,
};

export const commands = {
  registerCommand: (id: string, fn: (...args: any[]) => any) => {
    state.commands.set(id, fn);
    return { dispose: () => state.commands.delete(id) };
  },
  executeCommand: (id: string, ...args: any[]) => state.commands.get(id)?.(...args),
};

/** install makes require('vscode') return this module. */
export function install(): void {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const Module = require('module');
  const load = Module._load;
  Module._load = function (request: string, ...rest: unknown[]) {
    if (request === 'vscode') {
      return module.exports;
    }
    return load.call(this, request, ...rest);
  };
}
