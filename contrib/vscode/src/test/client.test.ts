// Tests of the socket client (no VS Code needed): `npm test`, or
// `node --test out/test/` after `tsc -p .`.
//
// The tests marked "daemon" talk to a real ragd serving the vault in
// contrib/editortest/testdata/vault: RAGD_SOCKET names its socket and
// RAGD_TEST_VAULT the vault's directory (go test ./contrib/editortest sets
// both). Without them they are skipped.

import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { checkSocket, defaultSocket, Event, PROTOCOL_VERSION, RagdClient, RagdError } from '../client';

function tmpSocket(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rgv'));
  return path.join(dir, 's.sock');
}

/** serve answers on a temp Unix socket with handler. */
async function serve(handler: http.RequestListener): Promise<{ socket: string; server: http.Server; close(): Promise<void> }> {
  const socket = tmpSocket();
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    socket,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => {
          fs.rmSync(path.dirname(socket), { recursive: true, force: true });
          resolve();
        });
      }),
  };
}

function lines(file: string, from: number, to: number): string {
  return fs.readFileSync(file, 'utf8').split('\n').slice(from - 1, to).join('\n');
}

describe('defaultSocket', () => {
  it('honours RAGD_SOCKET, then XDG_RUNTIME_DIR, then /tmp/ragd-<uid>', () => {
    assert.equal(defaultSocket({ RAGD_SOCKET: '/s/r.sock', XDG_RUNTIME_DIR: '/run/user/5' }, 5), '/s/r.sock');
    assert.equal(defaultSocket({ XDG_RUNTIME_DIR: '/run/user/5/' }, 5), '/run/user/5/ragd/ragd.sock');
    assert.equal(defaultSocket({ XDG_RUNTIME_DIR: 'relative' }, 5), '/tmp/ragd-5/ragd.sock');
    assert.equal(defaultSocket({ RAGD_SOCKET: '' }, 5), '/tmp/ragd-5/ragd.sock');
    assert.equal(new RagdClient({ socketPath: '/x.sock' }).socketPath, '/x.sock');
  });
});

describe('client against a fake server', () => {
  let fake: Awaited<ReturnType<typeof serve>>;
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

  before(async () => {
    fake = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        switch (req.url) {
          case '/v1/search': {
            const out = JSON.stringify({ query: JSON.parse(body).query, results: null, grounded: false, suggestions: ['fewer words'] });
            res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) });
            res.end(out);
            return;
          }
          case '/v1/status':
            // No Content-Length: a chunked answer must work too.
            res.writeHead(200, { 'Content-Type': 'application/json' });
            res.write('{"state":"idle","text":"Bel');
            res.end('ém"}\n');
            return;
          case '/v1/events':
            res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
            res.write('{"type":"run_started","vault":"n"}\n{"type":"ind');
            setTimeout(() => res.write('exed","path":"a.md"}\n\n'), 20);
            return;
          case '/v1/slow':
            return; // never answers
          default:
            res.writeHead(404, { 'Content-Type': 'application/json' });
            res.end(JSON.stringify({ error: `no such endpoint: ${req.method} ${req.url}` }));
        }
      });
    });
  });
  after(() => fake.close());

  it('sends the protocol header and a JSON body', async () => {
    const c = new RagdClient({ socketPath: fake.socket });
    const resp = await c.search({ query: 'crème brûlée', k: 3 });
    assert.deepEqual(resp.results, null);
    assert.equal(resp.query, 'crème brûlée');
    const req = seen[seen.length - 1];
    assert.equal(req.method, 'POST');
    assert.equal(req.headers['ragd-protocol-version'], '1');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(Number(req.headers['content-length']), Buffer.byteLength(req.body));
    assert.deepEqual(JSON.parse(req.body), { query: 'crème brûlée', k: 3 });
  });

  it('reads chunked answers and UTF-8 split across chunks', async () => {
    const st = await new RagdClient({ socketPath: fake.socket }).status();
    assert.equal(st.state, 'idle');
    assert.equal((st as unknown as { text: string }).text, 'Belém');
  });

  it('turns error answers into RagdError with the message and status', async () => {
    const c = new RagdClient({ socketPath: fake.socket });
    await assert.rejects(c.similar({ path: '/x.md' }), (err: unknown) => {
      assert.ok(err instanceof RagdError);
      assert.equal(err.status, 404);
      assert.equal(err.message, 'ragd: no such endpoint: POST /v1/similar (HTTP 404)');
      return true;
    });
  });

  it('times out', async () => {
    const c = new RagdClient({ socketPath: fake.socket, timeoutMs: 100 });
    await assert.rejects(c.request('GET', '/v1/slow'), (err: unknown) => {
      assert.ok(err instanceof RagdError);
      assert.equal(err.code, 'ETIMEDOUT');
      return true;
    });
  });

  it('parses the NDJSON event stream across chunks', async () => {
    const c = new RagdClient({ socketPath: fake.socket });
    const got: Event[] = [];
    let opened = false;
    await new Promise<void>((resolve, reject) => {
      const stream = c.events({
        onOpen: () => (opened = true),
        onEvent: (ev) => {
          got.push(ev);
          if (got.length === 2) {
            stream.close();
          }
        },
        onEnd: (err) => (err ? reject(err) : resolve()),
      });
    });
    assert.ok(opened);
    assert.deepEqual(
      got.map((e) => e.type),
      ['run_started', 'indexed'],
    );
    assert.equal(got[1].path, 'a.md');
  });
});

describe('client without a daemon', () => {
  it('says ragd is not running', async () => {
    const socket = path.join(os.tmpdir(), `rgv-none-${process.pid}`, 'none.sock');
    await assert.rejects(new RagdClient({ socketPath: socket }).status(), (err: unknown) => {
      assert.ok(err instanceof RagdError);
      assert.match(err.message, /ragd is not running/);
      assert.equal(err.code, 'ENOENT');
      return true;
    });
  });
});

describe('unsafe sockets', () => {
  it('refuses a socket in a directory others can write', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rgv'));
    try {
      const sock = path.join(dir, 'ragd.sock');
      assert.equal(checkSocket(sock), undefined);
      assert.match(checkSocket(sock, (process.getuid?.() ?? 0) + 1) ?? '', /belongs to uid/);
      fs.chmodSync(dir, 0o777);
      await assert.rejects(new RagdClient({ socketPath: sock }).status(), (err: unknown) => {
        assert.ok(err instanceof RagdError);
        assert.match(err.message, /writable by others/);
        assert.equal(err.code, 'EUNSAFE');
        return true;
      });
      const ended = await new Promise<Error | undefined>((resolve) => {
        new RagdClient({ socketPath: sock }).events({ onEvent: () => undefined, onEnd: resolve });
      });
      assert.match(ended?.message ?? '', /writable by others/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

const socket = process.env.RAGD_SOCKET;
const vault = process.env.RAGD_TEST_VAULT;
const daemon = socket && vault ? {} : { skip: 'needs RAGD_SOCKET and RAGD_TEST_VAULT (go test ./contrib/editortest)' };

describe('client against ragd', daemon, () => {
  const c = new RagdClient({ socketPath: socket, timeoutMs: 20000 });
  const real = (p: string) => fs.realpathSync(p);

  it('never sends a query to an unsafe socket (RAGD_TEST_UNSAFE_SOCKET; the Go side counts what reaches it)', async () => {
    const unsafe = process.env.RAGD_TEST_UNSAFE_SOCKET;
    assert.ok(unsafe, 'RAGD_TEST_UNSAFE_SOCKET is set');
    await assert.rejects(new RagdClient({ socketPath: unsafe }).search({ query: 'secret project plans' }), /refusing socket/);
  });

  it('status', async () => {
    const st = await c.status();
    // The daemon answers clients of its protocol and older ones.
    assert.ok(st.protocol >= PROTOCOL_VERSION, `daemon protocol ${st.protocol}`);
    assert.equal(st.socket, socket);
    assert.equal(st.vaults?.length, 1);
    assert.equal(st.vaults?.[0].documents, 4);
  });

  it('search cites lines that hold the text', async () => {
    const resp = await c.search({ query: 'concentric rings blight', k: 5 });
    assert.equal(resp.grounded, true);
    const top = resp.results![0];
    assert.equal(top.path, 'garden/Tomatoes.md');
    assert.equal(real(top.abs_path), real(path.join(vault!, 'garden', 'Tomatoes.md')));
    assert.match(lines(top.abs_path, top.line_start, top.line_end), /concentric rings/);
    assert.equal(top.heading, 'Tomatoes > Blight');
  });

  it('search without a match is not grounded', async () => {
    const resp = await c.search({ query: 'xylophonequartzzz' });
    assert.equal(resp.grounded, false);
    assert.equal((resp.results ?? []).length, 0);
  });

  it('bad requests are RagdError 400', async () => {
    await assert.rejects(c.search({ query: '   ' }), (err: unknown) => err instanceof RagdError && err.status === 400);
  });

  it('context returns a cited block', async () => {
    const resp = await c.context({ query: 'concentric rings blight' });
    assert.equal(resp.grounded, true);
    assert.match(resp.context, /<retrieved-context/);
    assert.match(resp.context, /garden\/Tomatoes\.md/);
    assert.match(resp.context, /concentric rings/);
    const cite = (resp.citations ?? []).find((x) => x.path === 'garden/Tomatoes.md');
    assert.ok(cite, 'a citation of garden/Tomatoes.md');
    assert.ok(resp.context.includes(cite.cite), `the block holds the citation ${cite.cite}`);
  });

  it('similar lists related notes, not the note itself', async () => {
    const resp = await c.similar({ path: path.join(vault!, 'garden', 'Compost.md'), k: 5 });
    assert.equal(resp.path, 'garden/Compost.md');
    const notes = resp.notes ?? [];
    assert.ok(
      notes.some((n) => n.path === 'garden/Tomatoes.md'),
      `Tomatoes among ${JSON.stringify(notes.map((n) => n.path))}`,
    );
    assert.ok(!notes.some((n) => n.path === 'garden/Compost.md'));
    for (const n of notes) {
      assert.ok(fs.existsSync(n.abs_path), n.abs_path);
      // 0: the note as a whole is related (by links), else a passage.
      assert.ok(n.line_start === 0 || (n.line_start >= 1 && n.line_end >= n.line_start), JSON.stringify(n));
    }
  });

  it('streams the events of a reindex', async () => {
    const types: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        stream.close();
        reject(new Error(`no run_finished event; got ${JSON.stringify(types)}`));
      }, 15000);
      const stream = c.events({
        onOpen: () => {
          c.reindex({ path: 'Zeppelin.md', wait: true }).catch(reject);
        },
        onEvent: (ev) => {
          types.push(ev.type);
          if (ev.type === 'run_finished') {
            clearTimeout(timer);
            stream.close();
          }
        },
        onEnd: (err) => (err ? reject(err) : resolve()),
      });
    });
    assert.deepEqual(types.filter((t) => t.startsWith('run_')), ['run_started', 'run_finished']);
  });
});
