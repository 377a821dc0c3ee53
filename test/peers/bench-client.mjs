// The TypeScript SDK contender of switchboard's speed harness (cmd/bench).
// It speaks the harness's child protocol, the same as the Go contenders:
//
//   node bench-client.mjs calls '<target json>' WARMUP
//     connects, makes WARMUP calls, prints {"ready":true}; then for every
//     {"calls":N,"callers":C} line on stdin makes N calls, C at a time, and
//     prints {"calls","wall_ns","p50_ns","p99_ns","cpu_ns","allocs","bytes"}.
//     It closes and exits when stdin ends.
//   node bench-client.mjs startup '<target json>' N
//     connects N clients at once (Promise.all), each listing its tools,
//     prints {"start_ms","all_ms","connected","rss_kb"}, closes them, exits.
//
// A target is {"transport":"stdio"|"http","command","args","env","url",
// "tool","arguments"}. Errors are printed as {"error":"..."}.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createInterface } from 'node:readline';

const print = (v) => process.stdout.write(JSON.stringify(v) + '\n');

async function connect(target, name) {
  const client = new Client({ name: 'bench-ts', version: '0' });
  let transport;
  if (target.transport === 'http') {
    transport = new StreamableHTTPClientTransport(new URL(target.url));
  } else {
    transport = new StdioClientTransport({
      command: target.command,
      args: name ? [...(target.args ?? []), '--name', name] : target.args ?? [],
      env: { ...process.env, ...getDefaultEnvironment(), ...(target.env ?? {}) },
      stderr: 'inherit',
    });
  }
  await client.connect(transport);
  return client;
}

async function call(client, target) {
  const res = await client.callTool({ name: target.tool, arguments: target.arguments ?? {} });
  if (res.isError) throw new Error(`${target.tool}: ${JSON.stringify(res.content)}`);
}

// calls makes n calls from callers loops, each taking the next number, and
// returns every call's time in nanoseconds.
async function calls(client, target, n, callers) {
  const lat = new Array(n);
  let next = 0;
  const loop = async () => {
    for (let i = next++; i < n; i = next++) {
      const start = process.hrtime.bigint();
      await call(client, target);
      lat[i] = Number(process.hrtime.bigint() - start);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, callers) }, loop));
  return lat;
}

// nearest rank, as the Go side takes it
const percentile = (sorted, p) => sorted[Math.max(0, Math.min(Math.ceil(p * sorted.length) - 1, sorted.length - 1))];

async function callsMode(target, warmup) {
  const client = await connect(target);
  await calls(client, target, Math.max(1, warmup), 1);
  print({ ready: true });
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    const req = JSON.parse(line);
    const cpu0 = process.cpuUsage();
    const start = process.hrtime.bigint();
    const lat = await calls(client, target, req.calls, req.callers);
    const wall = Number(process.hrtime.bigint() - start);
    const cpu = process.cpuUsage(cpu0);
    lat.sort((a, b) => a - b);
    print({
      calls: req.calls,
      wall_ns: wall,
      p50_ns: percentile(lat, 0.5),
      p99_ns: percentile(lat, 0.99),
      cpu_ns: (cpu.user + cpu.system) * 1000,
      allocs: -1,
      bytes: -1,
    });
  }
  await client.close();
}

async function startupMode(target, n) {
  const start = process.hrtime.bigint();
  const settled = await Promise.allSettled(
    Array.from({ length: n }, async (_, i) => {
      const client = await connect(target, `s${String(i).padStart(3, '0')}`);
      await client.listTools();
      return client;
    }),
  );
  const took = Number(process.hrtime.bigint() - start) / 1e6;
  const clients = settled.filter((s) => s.status === 'fulfilled').map((s) => s.value);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    print({ error: String(failed.reason?.message ?? failed.reason) });
  } else {
    print({ start_ms: took, all_ms: took, connected: clients.length, rss_kb: process.resourceUsage().maxRSS });
  }
  await Promise.all(clients.map((c) => c.close()));
  return failed ? 1 : 0;
}

const [mode, spec, arg] = process.argv.slice(2);
try {
  const target = JSON.parse(spec);
  if (mode === 'calls') {
    await callsMode(target, Number(arg ?? 0));
  } else if (mode === 'startup') {
    process.exitCode = await startupMode(target, Number(arg ?? 1));
  } else {
    throw new Error(`unknown mode ${mode}: want calls or startup`);
  }
} catch (err) {
  print({ error: String(err?.message ?? err) });
  process.exitCode = 1;
}
