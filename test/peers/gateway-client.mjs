// A scripted MCP session on the TypeScript SDK (@modelcontextprotocol/sdk),
// the client most agents use, for end-to-end tests of `switchboard serve`
// (or any MCP server). It connects over stdio or streamable HTTP, runs the
// steps given on the command line in their order, and prints one JSON line
// per step on stdout. Nothing else goes to stdout; the server's stderr (for
// stdio) is passed through to ours.
//
// usage:
//   node gateway-client.mjs [options] [steps] --url URL
//   node gateway-client.mjs [options] [steps] --stdio '{"command","args","env","cwd"}'
//   node gateway-client.mjs [options] [steps] -- COMMAND [ARG...]
//
// steps (each prints a line {"step":NAME,"ok":BOOL,"ms":N,...}):
//   --list                    tools/list: "count", "tools" (names)
//   --call NAME               tools/call: "isError", "text" (the text items
//                             joined by newlines), "content", "structured",
//                             "requests" (the server's sampling/elicitation/
//                             roots requests answered during the call)
//   --progress NAME           tools/call with a progress token: also
//                             "progressToken" and "progress" (each
//                             notification's progress, total, message)
//   --cancel NAME             tools/call aborted (AbortSignal) after
//                             --after MS, or at its first progress
//                             notification with --after progress (the call
//                             then carries a progress token): "outcome" is
//                             "aborted" (ok), "result" or "error" (what came
//                             back instead), "progressCount", "pingOk"
//                             whether the session still answers
//   --wait-list-changed MS    wait up to MS for a notifications/tools/
//                             list_changed not yet consumed by an earlier
//                             wait: "waitedMs", "seen" (the count so far)
//   --wait-for-tool NAME      wait (up to --within MS, default 30000) until a
//                             tools/list_changed brings a list holding NAME:
//                             it lists after each notification not yet
//                             consumed; "notifications", "lists", "tools"
//   --ping                    ping
//   --pause                   print {"event":"pause"} and wait for a line on
//                             stdin (or its end), so a driver can act
//                             between steps, e.g. edit a config; the
//                             list_changed notifications seen before it
//                             count as consumed
//   --list-prompts            prompts/list: "count", "prompts" (names)
//   --wait-log TEXT           wait (up to --within MS, default 30000) for a
//                             notifications/message whose data holds TEXT,
//                             seen at any time so far: "level", "logger",
//                             "data"
// step modifiers (for the step just before them):
//   --args JSON               the tool's arguments (default {})
//   --after MS|progress       --cancel's delay (default 100 ms)
//   --within MS               --wait-for-tool's and --wait-log's bound
//                             (default 30000)
// a step's NAME may be a JSON object {"name","arguments"} instead.
//
// options:
//   --sampling TEXT   declare sampling; answer sampling/createMessage with an
//                     assistant message of TEXT (model "gateway-client")
//   --elicit JSON     declare elicitation; accept elicitation/create with
//                     JSON as the content
//   --root URI        declare roots; answer roots/list with URI (repeatable)
//   --token T         HTTP: send Authorization: Bearer T
//   --log-level LEVEL send logging/setLevel LEVEL once connected
//   --timeout MS      each request's timeout (default 30000)
//   --name NAME       the clientInfo name (default gateway-client)
//
// First line: {"step":"connect","ok","ms","server","protocol","capabilities"}.
// Last line: {"step":"close","ok","errors"} with the errors the SDK reported
// out of band (late responses, transport errors). Exit status: 0 when every
// step was ok, 1 when one was not, 2 for a usage error or a failed connect.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createInterface } from 'node:readline';

const print = (v) => process.stdout.write(JSON.stringify(v) + '\n');

class UsageError extends Error {}

function parseArgs(argv) {
  const o = { steps: [], roots: [], timeout: 30000, name: 'gateway-client' };
  const need = (i, flag) => {
    if (i >= argv.length) throw new UsageError(`${flag} needs a value`);
    return argv[i];
  };
  const json = (text, flag) => {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new UsageError(`${flag}: ${err.message}`);
    }
  };
  const number = (text, flag) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0) throw new UsageError(`${flag} wants a number of milliseconds, not ${text}`);
    return n;
  };
  const tool = (text) => {
    if (text.trimStart().startsWith('{')) {
      const t = json(text, 'tool');
      if (typeof t.name !== 'string') throw new UsageError(`tool ${text}: no "name"`);
      return { name: t.name, arguments: t.arguments ?? {} };
    }
    return { name: text, arguments: {} };
  };
  const last = (flag, kinds) => {
    const s = o.steps.at(-1);
    if (!s || !kinds.includes(s.kind)) throw new UsageError(`${flag} follows one of --${kinds.join(', --')}`);
    return s;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--list':
      case '--ping':
      case '--pause':
      case '--list-prompts':
        o.steps.push({ kind: a.slice(2) });
        break;
      case '--call':
      case '--progress':
      case '--cancel':
        o.steps.push({ kind: a.slice(2), ...tool(need(++i, a)), after: 100 });
        break;
      case '--wait-for-tool':
        o.steps.push({ kind: 'wait-for-tool', name: need(++i, a), within: 30000 });
        break;
      case '--wait-log':
        o.steps.push({ kind: 'wait-log', text: need(++i, a), within: 30000 });
        break;
      case '--log-level':
        o.logLevel = need(++i, a);
        break;
      case '--within':
        last(a, ['wait-for-tool', 'wait-log']).within = number(need(++i, a), a);
        break;
      case '--wait-list-changed':
        o.steps.push({ kind: 'wait-list-changed', bound: number(need(++i, a), a) });
        break;
      case '--args':
        last(a, ['call', 'progress', 'cancel']).arguments = json(need(++i, a), a);
        break;
      case '--after': {
        const v = need(++i, a);
        last(a, ['cancel']).after = v === 'progress' ? v : number(v, a);
        break;
      }
      case '--sampling':
        o.sampling = need(++i, a);
        break;
      case '--elicit':
        o.elicit = json(need(++i, a), a);
        break;
      case '--root':
        o.roots.push(need(++i, a));
        break;
      case '--token':
        o.token = need(++i, a);
        break;
      case '--timeout':
        o.timeout = number(need(++i, a), a);
        break;
      case '--name':
        o.name = need(++i, a);
        break;
      case '--url':
        o.url = need(++i, a);
        break;
      case '--stdio':
        o.stdio = json(need(++i, a), a);
        break;
      case '--':
        if (i + 1 >= argv.length) throw new UsageError('-- needs a command');
        o.stdio = { command: argv[i + 1], args: argv.slice(i + 2) };
        i = argv.length;
        break;
      default:
        throw new UsageError(`unknown argument ${a}`);
    }
  }
  if ((o.url ? 1 : 0) + (o.stdio ? 1 : 0) !== 1) throw new UsageError('want exactly one of --url, --stdio or -- COMMAND');
  if (o.stdio && typeof o.stdio.command !== 'string') throw new UsageError('--stdio needs a "command"');
  return o;
}

// Session state the handlers share with the steps.
const state = {
  requests: [], // server-to-client requests answered since the current step began
  listChanged: 0, // notifications/tools/list_changed seen
  consumed: 0, // of them, taken by a wait
  listWaiters: [],
  logs: [], // notifications/message params, in order
  logWaiters: [],
  errors: [], // what the SDK reported through onerror
};

function transportFor(o) {
  if (o.url) {
    const headers = o.token ? { Authorization: `Bearer ${o.token}` } : {};
    return new StreamableHTTPClientTransport(new URL(o.url), { requestInit: { headers } });
  }
  return new StdioClientTransport({
    command: o.stdio.command,
    args: o.stdio.args ?? [],
    env: { ...getDefaultEnvironment(), ...process.env, ...(o.stdio.env ?? {}) },
    cwd: o.stdio.cwd,
    stderr: 'inherit',
  });
}

function newClient(o) {
  const capabilities = {};
  if (o.sampling !== undefined) capabilities.sampling = {};
  if (o.elicit !== undefined) capabilities.elicitation = {};
  if (o.roots.length > 0) capabilities.roots = { listChanged: false };
  const client = new Client({ name: o.name, version: '1.0.0' }, { capabilities });
  if (o.sampling !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      state.requests.push({ method: req.method, params: req.params });
      return { role: 'assistant', content: { type: 'text', text: o.sampling }, model: 'gateway-client', stopReason: 'endTurn' };
    });
  }
  if (o.elicit !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      state.requests.push({ method: req.method, params: req.params });
      return { action: 'accept', content: o.elicit };
    });
  }
  if (o.roots.length > 0) {
    client.setRequestHandler(ListRootsRequestSchema, async (req) => {
      state.requests.push({ method: req.method, params: req.params });
      return { roots: o.roots.map((uri) => ({ uri })) };
    });
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    state.listChanged++;
    for (const wake of state.listWaiters.splice(0)) wake();
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    state.logs.push(n.params);
    for (const wake of state.logWaiters.splice(0)) wake();
  });
  client.onerror = (err) => state.errors.push(String(err?.message ?? err));
  return client;
}

const textOf = (content) =>
  (content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

const callFields = (res) => ({
  isError: res.isError === true,
  text: textOf(res.content),
  content: res.content,
  ...(res.structuredContent !== undefined ? { structured: res.structuredContent } : {}),
});

// waitListChanged resolves true once an unconsumed list_changed is there,
// false after bound ms.
function waitListChanged(bound) {
  return new Promise((resolve) => {
    const take = () => {
      if (state.listChanged > state.consumed) {
        state.consumed++;
        clearTimeout(timer);
        resolve(true);
        return true;
      }
      return false;
    };
    const timer = setTimeout(() => {
      state.listWaiters = state.listWaiters.filter((w) => w !== wake);
      resolve(false);
    }, bound);
    const wake = () => {
      if (!take()) state.listWaiters.push(wake);
    };
    if (!take()) state.listWaiters.push(wake);
  });
}

// stdinLines hands out stdin's lines one per pause; null once it ended.
let stdinReader;
function nextStdinLine() {
  if (!stdinReader) {
    const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
    const lines = [];
    const waiting = [];
    let ended = false;
    rl.on('line', (l) => (waiting.length ? waiting.shift()(l) : lines.push(l)));
    rl.on('close', () => {
      ended = true;
      for (const w of waiting.splice(0)) w(null);
    });
    stdinReader = () =>
      new Promise((resolve) => {
        if (lines.length) resolve(lines.shift());
        else if (ended) resolve(null);
        else waiting.push(resolve);
      });
  }
  return stdinReader();
}

async function runStep(client, o, s) {
  const opts = { timeout: o.timeout };
  const params = () => ({ name: s.name, arguments: s.arguments });
  switch (s.kind) {
    case 'list': {
      const { tools } = await client.listTools(undefined, opts);
      return { ok: true, count: tools.length, tools: tools.map((t) => t.name) };
    }
    case 'list-prompts': {
      const { prompts } = await client.listPrompts(undefined, opts);
      return { ok: true, count: prompts.length, prompts: prompts.map((p) => p.name) };
    }
    case 'ping':
      await client.ping(opts);
      return { ok: true };
    case 'call': {
      const res = await client.callTool(params(), CallToolResultSchema, opts);
      return { ok: true, name: s.name, ...callFields(res) };
    }
    case 'progress': {
      const progress = [];
      const res = await client.callTool(params(), CallToolResultSchema, {
        ...opts,
        onprogress: (p) => progress.push({ progress: p.progress, total: p.total, message: p.message }),
      });
      // The SDK sends the request's id as its progress token.
      return { ok: progress.length > 0, name: s.name, progressCount: progress.length, progress, ...callFields(res) };
    }
    case 'cancel': {
      const ac = new AbortController();
      const began = performance.now();
      let progressCount = 0;
      const callOpts = { ...opts, signal: ac.signal };
      let timer;
      if (s.after === 'progress') {
        callOpts.onprogress = () => {
          if (progressCount++ === 0) ac.abort(new Error(`cancelled at the first progress notification`));
        };
      } else {
        timer = setTimeout(() => ac.abort(new Error(`cancelled after ${s.after} ms`)), s.after);
      }
      let out;
      try {
        const res = await client.callTool(params(), CallToolResultSchema, callOpts);
        out = { ok: false, outcome: 'result', ...callFields(res) };
      } catch (err) {
        out = ac.signal.aborted
          ? { ok: true, outcome: 'aborted', error: String(err?.message ?? err) }
          : { ok: false, outcome: 'error', error: String(err?.message ?? err) };
      } finally {
        clearTimeout(timer);
      }
      out.cancelledAtMs = ac.signal.aborted ? Math.round(performance.now() - began) : null;
      if (s.after === 'progress') out.progressCount = progressCount;
      // The session goes on after a cancellation.
      try {
        await client.ping(opts);
        out.pingOk = true;
      } catch (err) {
        out.pingOk = false;
        out.pingError = String(err?.message ?? err);
        out.ok = false;
      }
      return { name: s.name, after: s.after, ...out };
    }
    case 'wait-list-changed': {
      const ok = await waitListChanged(s.bound);
      return { ok, bound: s.bound, seen: state.listChanged, ...(ok ? {} : { error: `no notifications/tools/list_changed within ${s.bound} ms` }) };
    }
    case 'wait-for-tool': {
      const deadline = performance.now() + s.within;
      let notifications = 0;
      let lists = 0;
      for (;;) {
        const left = deadline - performance.now();
        if (left <= 0 || !(await waitListChanged(left))) {
          return { ok: false, name: s.name, notifications, lists, error: `no list with ${s.name} within ${s.within} ms` };
        }
        notifications++;
        const { tools } = await client.listTools(undefined, opts);
        lists++;
        if (tools.some((t) => t.name === s.name)) {
          return { ok: true, name: s.name, notifications, lists, tools: tools.map((t) => t.name) };
        }
      }
    }
    case 'wait-log': {
      const match = () => state.logs.find((l) => JSON.stringify(l.data ?? '').includes(s.text));
      const found = await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(match()), s.within);
        const check = () => {
          const m = match();
          if (m) {
            clearTimeout(timer);
            resolve(m);
          } else state.logWaiters.push(check);
        };
        check();
      });
      if (!found) return { ok: false, text: s.text, seen: state.logs.length, error: `no log message with ${JSON.stringify(s.text)} within ${s.within} ms` };
      return { ok: true, text: s.text, level: found.level, logger: found.logger, data: found.data };
    }
    case 'pause': {
      state.consumed = state.listChanged;
      print({ event: 'pause' });
      const line = await nextStdinLine();
      return { ok: true, resumed: line === null ? 'stdin ended' : 'line' };
    }
  }
  throw new Error(`unknown step ${s.kind}`);
}

async function main() {
  let o;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`gateway-client: ${err.message}\n`);
    return 2;
  }
  const client = newClient(o);
  const transport = transportFor(o);
  // The client tells an HTTP transport the negotiated version; stdio has no
  // such hook, so one is added to learn it.
  let protocol = null;
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    protocol = v;
    setVersion?.(v);
  };
  const t0 = performance.now();
  try {
    await client.connect(transport, { timeout: o.timeout });
  } catch (err) {
    print({ step: 'connect', ok: false, ms: Math.round(performance.now() - t0), error: String(err?.message ?? err) });
    await client.close().catch(() => {});
    return 2;
  }
  print({
    step: 'connect',
    ok: true,
    ms: Math.round(performance.now() - t0),
    server: client.getServerVersion(),
    protocol,
    capabilities: client.getServerCapabilities(),
  });
  if (o.logLevel !== undefined) await client.setLoggingLevel(o.logLevel, { timeout: o.timeout });
  let allOk = true;
  for (const s of o.steps) {
    state.requests = [];
    const start = performance.now();
    let line;
    try {
      line = await runStep(client, o, s);
    } catch (err) {
      line = { ok: false, ...(s.name ? { name: s.name } : {}), error: String(err?.message ?? err), code: err?.code };
    }
    const requests = state.requests.length > 0 ? { requests: state.requests } : {};
    print({ step: s.kind, ...line, ...requests, ms: Math.round(performance.now() - start) });
    allOk &&= line.ok;
  }
  const errors = state.errors.slice();
  try {
    await client.close();
  } catch (err) {
    errors.push(String(err?.message ?? err));
  }
  print({ step: 'close', ok: true, errors });
  return allOk ? 0 : 1;
}

process.exitCode = await main().catch((err) => {
  print({ step: 'fatal', ok: false, error: String(err?.stack ?? err) });
  return 2;
});
// stdin, when read by --pause, keeps the event loop alive.
process.stdin.destroy();
