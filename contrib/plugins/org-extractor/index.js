#!/usr/bin/env node
'use strict';
// A ragd extractor plugin written in Node: it turns Emacs Org-mode files
// into Markdown, line for line. ragd starts it as a subprocess and talks to
// it over gRPC, following hashicorp/go-plugin's protocol, implemented here
// by hand:
//
//   1. check the magic cookie and the protocol version in the environment;
//   2. serve the ragd.plugin.v1.Extractor service, the gRPC health service
//      (go-plugin asks it about service "plugin") and go-plugin's
//      GRPCController (Shutdown) on a Unix socket;
//   3. print one handshake line on stdout:
//        CORE-VERSION|APP-VERSION|NETWORK|ADDRESS|PROTOCOL|
//      then never write to stdout again;
//   4. log to stderr as JSON lines {"@level","@message","@timestamp",...},
//      which ragd forwards to its own log tagged with the plugin's name;
//   5. exit when ragd exits (its parent pid changes) or asks it to.
//
// go-plugin's automatic mutual TLS is not implemented: register the plugin
// with auto_mtls = false. The socket lives in a directory only the user
// can enter.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { orgToMarkdown } = require('./org');
const { version } = require('./package.json');

const MAGIC_COOKIE_KEY = 'RAGD_PLUGIN';
const MAGIC_COOKIE_VALUE = '5c0b3a9e-ragd-plugin';
const CORE_PROTOCOL_VERSION = 1; // go-plugin's own
const APP_PROTOCOL_VERSION = 1; // ragd.plugin.v1
const MAX_MESSAGE_BYTES = 512 * 1024 * 1024;

const LEVELS = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 };
const minLevel = LEVELS[(process.env.RAGD_PLUGIN_LOG_LEVEL || 'info').toLowerCase()] ?? LEVELS.info;

function log(level, message, fields = {}) {
  if (LEVELS[level] < minLevel) return;
  const entry = { '@level': level, '@message': message, '@timestamp': new Date().toISOString(), ...fields };
  process.stderr.write(JSON.stringify(entry) + '\n');
}

function fail(message) {
  log('error', message);
  process.exit(1);
}

if (process.env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
  process.stderr.write('This is a ragd plugin: ragd starts it (see [[plugin]] in ragd.toml); it is not run by hand.\n');
  process.exit(1);
}
const offered = (process.env.PLUGIN_PROTOCOL_VERSIONS || '').split(',').map(Number);
if (!offered.includes(APP_PROTOCOL_VERSION)) {
  fail(`ragd offers plugin protocol versions [${offered}], this plugin speaks ${APP_PROTOCOL_VERSION}`);
}
if (process.env.PLUGIN_CLIENT_CERT) {
  fail('this plugin does not implement go-plugin AutoMTLS: set auto_mtls = false in its [[plugin]] table');
}

const protoDir = path.join(__dirname, 'proto');
const loaded = protoLoader.loadSync(
  ['ragd/plugin/v1/extractor.proto', 'grpc/health/v1/health.proto', 'plugin/grpc_controller.proto'],
  { includeDirs: [protoDir], keepCase: false, longs: Number, enums: String, defaults: true },
);
const pkg = grpc.loadPackageDefinition(loaded);

// Options from the plugin's [plugin.options] table.
let options = { stripTodo: false };

const extractor = {
  Configure(call, callback) {
    let opts = {};
    try {
      if (call.request.optionsJson) opts = JSON.parse(call.request.optionsJson);
    } catch (err) {
      return callback({ code: grpc.status.INVALID_ARGUMENT, details: `options: ${err.message}` });
    }
    for (const key of Object.keys(opts)) {
      if (key !== 'strip_todo') {
        return callback({ code: grpc.status.INVALID_ARGUMENT, details: `unknown option "${key}" (known: strip_todo)` });
      }
    }
    options = { stripTodo: Boolean(opts.strip_todo) };
    log('debug', 'configured', { strip_todo: options.stripTodo });
    callback(null, {});
  },
  Info(call, callback) {
    callback(null, { name: 'org', version, extensions: ['.org'], mediaTypes: ['text/org', 'text/x-org'] });
  },
  Extract(call, callback) {
    const { path: file, data } = call.request;
    try {
      const text = new TextDecoder('utf-8', { fatal: false }).decode(data).replace(/^\uFEFF/, '');
      const md = orgToMarkdown(text, options);
      callback(null, { text: md.text, format: 'markdown', title: md.title, metadata: md.metadata });
    } catch (err) {
      log('error', 'extract failed', { path: file, error: String(err) });
      callback({ code: grpc.status.INTERNAL, details: `${file}: ${err.message}` });
    }
  },
};

const SERVING = 'SERVING';
const health = {
  Check(call, callback) {
    const service = call.request.service;
    if (service === '' || service === 'plugin') return callback(null, { status: SERVING });
    callback({ code: grpc.status.NOT_FOUND, details: `unknown service ${service}` });
  },
  Watch(call) {
    call.write({ status: SERVING });
  },
};

const server = new grpc.Server({
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
});
server.addService(pkg.ragd.plugin.v1.Extractor.service, extractor);
server.addService(pkg.grpc.health.v1.Health.service, health);
server.addService(pkg.plugin.GRPCController.service, {
  Shutdown(call, callback) {
    callback(null, {});
    log('debug', 'shutdown requested');
    setImmediate(() => server.tryShutdown(() => process.exit(0)));
    setTimeout(() => process.exit(0), 1000).unref();
  },
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ragd-org-'));
const socket = path.join(dir, 'plugin.sock');
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => {}); // a terminal's Ctrl-C is for ragd, which then stops its plugins

server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) fail(`listen on ${socket}: ${err.message}`);
  process.stdout.write(`${CORE_PROTOCOL_VERSION}|${APP_PROTOCOL_VERSION}|unix|${socket}|grpc|\n`);
  log('debug', 'serving', { socket });
});

// A host killed with SIGKILL cannot stop its plugins: notice it instead.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) {
    log('warn', 'host process is gone; exiting', { parent_pid: parent });
    process.exit(0);
  }
}, 500).unref();
