// A client for ragd's local API: HTTP/1.1 + JSON on a Unix socket
// (docs/protocol.md). It depends on Node only, not on VS Code, so it can be
// tested with `node --test`.

import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';

export const PROTOCOL_VERSION = 1;
export const PROTOCOL_HEADER = 'Ragd-Protocol-Version';

// Wire types, as in ipc/types.go and ipc/types_hybrid.go. Fields the
// daemon adds later are ignored.

export interface SearchRequest {
  query: string;
  k?: number;
  vaults?: string[];
  path_prefix?: string;
  no_text?: boolean;
  mode?: 'hybrid' | 'lexical' | 'vector';
  snippet_width?: number; // characters of each result's snippet
}

/** [start, end) byte offsets of a matched word in UTF-8 text. */
export type Match = [number, number];

/** The part of a result's text around the matched words. */
export interface Snippet {
  text: string;
  line_start: number;
  line_end: number;
  matches?: Match[]; // in text
}

export interface Result {
  id: string;
  vault: string;
  path: string;
  abs_path: string;
  title: string;
  line_start: number;
  line_end: number;
  heading: string;
  headings?: string[];
  score: number;
  text?: string;
  page?: number;
  stale?: boolean;
  snippet?: Snippet;
  matches?: Match[]; // in text
}

export interface SearchResponse {
  query: string;
  results: Result[] | null;
  took_ms: number;
  grounded: boolean;
  suggestions?: string[];
  degraded?: string[];
}

export interface Progress {
  vault: string;
  trigger: string;
  total: number;
  done: number;
  rate: number;
  eta_seconds: number;
}

export interface VaultStatus {
  name: string;
  path: string;
  online: boolean;
  documents: number;
  chunks: number;
  failed: number;
  watching: string;
  queued: number;
  last_error?: string;
}

export interface StatusResponse {
  // idle only when nothing is left: indexing files, or embedding (every
  // file searchable by keywords, vector.pending chunks still to embed).
  state: 'idle' | 'indexing' | 'embedding' | string;
  version: string;
  protocol: number;
  pid: number;
  socket: string;
  vaults: VaultStatus[] | null;
  progress?: Progress;
  vector?: VectorStatus;
  semantic: string;
}

export interface VectorStatus {
  embedder: string;
  vectors: number;
  pending: number; // chunks waiting for vectors
  last_error?: string; // why embedding is paused
}

export interface ContextRequest {
  query: string;
  k?: number;
  vaults?: string[];
  path_prefix?: string;
  mode?: 'hybrid' | 'lexical' | 'vector';
  budget?: number;
  style?: 'snippets' | 'summary';
}

export interface ContextCitation {
  vault: string;
  path: string;
  abs_path: string;
  line_start: number;
  line_end: number;
  heading: string;
  score: number;
  cite: string;
  stale?: boolean;
}

export interface ContextResponse {
  query: string;
  context: string;
  grounded: boolean;
  citations: ContextCitation[] | null;
  suggestions?: string[];
  degraded?: string[];
  took_ms: number;
}

export interface SimilarRequest {
  vault?: string;
  path: string;
  k?: number;
}

export interface SimilarNote {
  vault: string;
  path: string;
  abs_path: string;
  title: string;
  score: number;
  /** The passage that relates the note best; 0 when the whole note does (links). */
  line_start: number;
  line_end: number;
  heading: string;
  why: string;
}

export interface SimilarResponse {
  vault: string;
  path: string;
  notes: SimilarNote[] | null;
  degraded?: string[];
  took_ms: number;
}

export interface ReindexRequest {
  vault?: string;
  path?: string;
  wait?: boolean;
}

export interface Event {
  type: 'indexed' | 'removed' | 'failed' | 'run_started' | 'run_finished' | 'lagged' | string;
  time: string;
  vault?: string;
  path?: string;
  error?: string;
  run?: { id: string; vault: string; trigger: string; indexed: number; removed: number; failed: number };
}

/** An error from ragd (status set) or from reaching it (code set). */
export class RagdError extends Error {
  constructor(message: string, readonly status?: number, readonly code?: string) {
    super(message);
    this.name = 'RagdError';
  }
}

/**
 * The socket ragd listens on by default: $RAGD_SOCKET, else
 * $XDG_RUNTIME_DIR/ragd/ragd.sock (when absolute), else
 * /tmp/ragd-<uid>/ragd.sock.
 */
export function defaultSocket(env: NodeJS.ProcessEnv = process.env, uid?: number): string {
  if (env.RAGD_SOCKET) {
    return env.RAGD_SOCKET;
  }
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg && xdg.startsWith('/')) {
    return xdg.replace(/\/+$/, '') + '/ragd/ragd.sock';
  }
  if (uid === undefined) {
    uid = process.getuid ? process.getuid() : 0;
  }
  return `/tmp/ragd-${uid}/ragd.sock`;
}

/**
 * Why the socket is unsafe to talk to, or undefined when it is safe: a
 * socket another user could control is refused, as ragctl does. Its
 * directory must belong to uid (default: the user) and be writable by nobody
 * else, and the socket itself must be uid's. A missing socket is not refused
 * here (connecting then says ragd is not running). Node cannot read the
 * listener's peer credentials; the directory check is what keeps others from
 * replacing the socket.
 */
export function checkSocket(socketPath: string, uid?: number): string | undefined {
  if (uid === undefined) {
    if (!process.getuid) {
      return undefined; // no uids on this platform
    }
    uid = process.getuid();
  }
  const refuse = (p: string, why: string) => `refusing socket ${p}: ${why}; another user could impersonate ragd there`;
  const stat = (p: string) => {
    try {
      return fs.statSync(p);
    } catch {
      return undefined;
    }
  };
  const dir = path.dirname(path.resolve(socketPath));
  const d = stat(dir);
  if (d) {
    if (!d.isDirectory()) {
      return refuse(dir, "the socket's directory is not a directory");
    }
    if (d.uid !== uid) {
      return refuse(dir, `the socket's directory belongs to uid ${d.uid}, not to you (uid ${uid})`);
    }
    if ((d.mode & 0o022) !== 0) {
      return refuse(dir, "the socket's directory is writable by others");
    }
  }
  const s = stat(socketPath);
  if (s) {
    if (!s.isSocket()) {
      return refuse(socketPath, 'it is not a socket');
    }
    if (s.uid !== uid) {
      return refuse(socketPath, `it belongs to uid ${s.uid}, not to you (uid ${uid})`);
    }
  }
  return undefined;
}

export interface ClientOptions {
  /** The socket path; defaultSocket() when empty. */
  socketPath?: string;
  /** Milliseconds to wait for an answer (default 10 s). */
  timeoutMs?: number;
}

/** A handle on an event stream. */
export interface EventStream {
  close(): void;
}

export class RagdClient {
  readonly socketPath: string;
  readonly timeoutMs: number;

  constructor(opts: ClientOptions = {}) {
    this.socketPath = opts.socketPath || defaultSocket();
    this.timeoutMs = opts.timeoutMs ?? 10000;
  }

  search(req: SearchRequest): Promise<SearchResponse> {
    return this.request('POST', '/v1/search', req);
  }

  status(): Promise<StatusResponse> {
    return this.request('GET', '/v1/status');
  }

  context(req: ContextRequest): Promise<ContextResponse> {
    return this.request('POST', '/v1/context', req);
  }

  similar(req: SimilarRequest): Promise<SimilarResponse> {
    return this.request('POST', '/v1/similar', req);
  }

  reindex(req: ReindexRequest): Promise<unknown> {
    return this.request('POST', '/v1/reindex', req);
  }

  private connectError(err: NodeJS.ErrnoException): RagdError {
    if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') {
      return new RagdError(`ragd is not running (nothing answers on ${this.socketPath})`, undefined, err.code);
    }
    return new RagdError(`cannot reach ragd on ${this.socketPath}: ${err.message}`, undefined, err.code);
  }

  /** Sends one request; the answer's JSON, or a RagdError. */
  request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const unsafe = checkSocket(this.socketPath);
    if (unsafe) {
      return Promise.reject(new RagdError(unsafe, undefined, 'EUNSAFE'));
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    const headers: http.OutgoingHttpHeaders = {
      Host: 'ragd',
      Accept: 'application/json',
      [PROTOCOL_HEADER]: String(PROTOCOL_VERSION),
      Connection: 'close',
    };
    if (payload) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = payload.length;
    }
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const fail = (err: Error) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          reject(err);
        }
      };
      const req = http.request({ socketPath: this.socketPath, method, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => fail(new RagdError(`cannot read from ragd: ${e.message}`)));
        res.on('end', () => {
          if (settled) {
            return;
          }
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          let data: unknown;
          try {
            data = text.trim() === '' ? {} : JSON.parse(text);
          } catch {
            if (status >= 400) {
              fail(new RagdError(`ragd: ${text.trim()} (HTTP ${status})`, status));
            } else {
              fail(new RagdError(`ragd sent invalid JSON for ${method} ${path}`, status));
            }
            return;
          }
          if (status >= 400) {
            const msg = (data as { error?: string }).error ?? text.trim();
            fail(new RagdError(`ragd: ${msg} (HTTP ${status})`, status));
            return;
          }
          settled = true;
          clearTimeout(timer);
          resolve(data as T);
        });
      });
      const timer = setTimeout(() => {
        fail(new RagdError(`ragd did not answer ${method} ${path} within ${this.timeoutMs} ms`, undefined, 'ETIMEDOUT'));
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => fail(this.connectError(e)));
      req.end(payload);
    });
  }

  /**
   * Streams GET /v1/events: onEvent gets each event, onOpen is called once
   * the stream is established, onEnd once it ends (err unset when closed by
   * close()).
   */
  events(handlers: {
    onEvent: (ev: Event) => void;
    onOpen?: () => void;
    onEnd?: (err?: Error) => void;
  }): EventStream {
    let closed = false;
    let ended = false;
    const end = (err?: Error) => {
      if (!ended) {
        ended = true;
        handlers.onEnd?.(closed ? undefined : err);
      }
    };
    const unsafe = checkSocket(this.socketPath);
    if (unsafe) {
      setImmediate(() => end(new RagdError(unsafe, undefined, 'EUNSAFE')));
      return {
        close() {
          closed = true;
        },
      };
    }
    const req = http.request(
      {
        socketPath: this.socketPath,
        method: 'GET',
        path: '/v1/events',
        headers: { Host: 'ragd', Accept: 'application/x-ndjson', [PROTOCOL_HEADER]: String(PROTOCOL_VERSION) },
        agent: false,
      },
      (res) => {
        if ((res.statusCode ?? 0) >= 400) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            let msg = Buffer.concat(chunks).toString('utf8').trim();
            try {
              msg = JSON.parse(msg).error ?? msg;
            } catch {
              // keep the raw text
            }
            end(new RagdError(`ragd: ${msg} (HTTP ${res.statusCode})`, res.statusCode));
          });
          return;
        }
        handlers.onOpen?.();
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (s: string) => {
          buf += s;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (line === '') {
              continue;
            }
            let ev: Event;
            try {
              ev = JSON.parse(line);
            } catch {
              continue;
            }
            handlers.onEvent(ev);
          }
        });
        res.on('error', (e) => end(e));
        res.on('end', () => end(closed ? undefined : new RagdError('ragd closed the event stream')));
        res.on('close', () => end(closed ? undefined : new RagdError('ragd closed the event stream')));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => end(closed ? undefined : this.connectError(e)));
    req.end();
    return {
      close() {
        closed = true;
        req.destroy();
        end();
      },
    };
  }
}
