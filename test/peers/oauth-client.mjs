// The TypeScript SDK's (@modelcontextprotocol/sdk) OAuth client, the whole
// flow, against an MCP server that is an OAuth protected resource (for
// end-to-end tests of `switchboard serve --http --auth-issuer`): its first
// request gets a 401, the SDK's auth() reads resource_metadata from the
// challenge, fetches the protected resource metadata, discovers the
// authorization server, registers a client (RFC 7591), and sends the
// "browser" to /authorize with PKCE S256 and the resource (RFC 8707). This
// script is the browser: it fetches that URL, takes the code from the
// redirect (the test's authorization server approves at once), and hands it
// to the transport's finishAuth, which redeems it. Then it connects again,
// lists the tools and calls one.
//
// usage:
//   node oauth-client.mjs --url URL [--call NAME [--args JSON]]
//
// Prints one JSON line per step on stdout, as gateway-client.mjs does:
//   {"step":"connect","ok","ms","server","authorize":{"ms","registered",
//     "resource","codeChallengeMethod","token"}}
//   {"step":"list","ok","count","tools"}
//   {"step":"call","ok","name","isError","text"}
//   {"step":"close","ok","errors"}
// Tokens and codes are never printed. Exit status 0 when every step was ok,
// 1 when one was not, 2 for a usage error or a failed connect.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const print = (v) => process.stdout.write(JSON.stringify(v) + '\n');

function parseArgs(argv) {
  const o = { calls: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const need = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--url':
        o.url = need();
        break;
      case '--call':
        o.calls.push({ name: need(), arguments: {} });
        break;
      case '--args':
        if (o.calls.length === 0) throw new Error('--args follows --call');
        o.calls.at(-1).arguments = JSON.parse(need());
        break;
      default:
        throw new Error(`unknown argument ${a}`);
    }
  }
  if (!o.url) throw new Error('--url is required');
  return o;
}

// The client's OAuth state, in memory: one run is one user's session.
class MemoryProvider {
  constructor() {
    // Nothing listens here: the "browser" below reads the code from the
    // redirect instead of following it.
    this._redirect = 'http://127.0.0.1:9/callback';
  }
  get redirectUrl() {
    return this._redirect;
  }
  get clientMetadata() {
    return {
      client_name: 'oauth-client.mjs',
      redirect_uris: [this._redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this._client;
  }
  saveClientInformation(info) {
    this._client = info;
  }
  tokens() {
    return this._tokens;
  }
  saveTokens(tokens) {
    this._tokens = tokens;
  }
  redirectToAuthorization(url) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v) {
    this._verifier = v;
  }
  codeVerifier() {
    if (!this._verifier) throw new Error('no code verifier saved');
    return this._verifier;
  }
}

async function main() {
  let o;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`oauth-client: ${err.message}\n`);
    return 2;
  }
  const errors = [];
  const provider = new MemoryProvider();
  const url = new URL(o.url);

  // The first connect ends in the SDK's UnauthorizedError once it has
  // sent the browser to the authorization endpoint.
  let began = Date.now();
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  try {
    await new Client({ name: 'oauth-client', version: '1' }).connect(first);
    print({ step: 'connect', ok: false, ms: Date.now() - began, error: 'connected without authorization' });
    return 2;
  } catch (err) {
    if (!(err instanceof UnauthorizedError) || !provider.authorizationUrl) {
      print({ step: 'connect', ok: false, ms: Date.now() - began, error: String(err) });
      return 2;
    }
  }
  const auth = provider.authorizationUrl;
  const resp = await fetch(auth, { redirect: 'manual' });
  const location = resp.headers.get('location');
  const code = location ? new URL(location).searchParams.get('code') : null;
  if (!code) {
    print({ step: 'connect', ok: false, ms: Date.now() - began, status: resp.status, error: location ?? (await resp.text()) });
    return 2;
  }
  try {
    await first.finishAuth(code);
  } catch (err) {
    print({ step: 'connect', ok: false, ms: Date.now() - began, error: `token: ${err}` });
    return 2;
  }
  const authorize = {
    ms: Date.now() - began,
    registered: Boolean(provider.clientInformation()?.client_id),
    token: Boolean(provider.tokens()?.access_token),
    resource: auth.searchParams.get('resource'),
    codeChallengeMethod: auth.searchParams.get('code_challenge_method'),
  };

  began = Date.now();
  const client = new Client({ name: 'oauth-client', version: '1' });
  client.onerror = (err) => errors.push(String(err));
  try {
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  } catch (err) {
    print({ step: 'connect', ok: false, ms: Date.now() - began, error: String(err) });
    return 2;
  }
  print({ step: 'connect', ok: true, ms: Date.now() - began, server: client.getServerVersion()?.name, authorize });

  let allOk = true;
  try {
    const list = await client.listTools();
    print({ step: 'list', ok: true, count: list.tools.length, tools: list.tools.map((t) => t.name) });
    for (const c of o.calls) {
      const res = await client.callTool(c);
      const text = (res.content ?? []).filter((x) => x.type === 'text').map((x) => x.text).join('\n');
      print({ step: 'call', ok: !res.isError, name: c.name, isError: Boolean(res.isError), text });
      allOk &&= !res.isError;
    }
  } catch (err) {
    print({ step: 'call', ok: false, error: String(err) });
    allOk = false;
  }
  await client.close();
  print({ step: 'close', ok: errors.length === 0, errors });
  return allOk && errors.length === 0 ? 0 : 1;
}

process.exitCode = await main();
