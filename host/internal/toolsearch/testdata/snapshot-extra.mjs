// A variant of testdata/snapshot.mjs for servers outside test/peers.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import fs from "node:fs";
const N = "node_modules/";
const env = { ...process.env, NOTION_TOKEN: "x", OPENAPI_MCP_HEADERS: '{"Authorization":"Bearer x","Notion-Version":"2022-06-28"}', PUPPETEER_SKIP_DOWNLOAD: "1", KUBECONFIG: "/tmp/snap2/kubeconfig", MCP_TRANSPORT_TYPE: "stdio", MCP_LOG_LEVEL: "error", GIT_BASE_DIR: "/tmp/snap2" };
const servers = [
  ["puppeteer", "@modelcontextprotocol/server-puppeteer", "dist/index.js", []],
  ["kubernetes", "mcp-server-kubernetes", "dist/index.js", []],
  ["notion", "@notionhq/notion-mcp-server", "bin/cli.mjs", []],
  ["git", "@cyanheads/git-mcp-server", "dist/index.js", []],
  ["redis", "@modelcontextprotocol/server-redis", "dist/index.js", ["redis://127.0.0.1:16399"]],
  ["postgres", "@modelcontextprotocol/server-postgres", "dist/index.js", ["postgresql://127.0.0.1:1/x"]],
];
const out = [];
for (const [name, pkg, script, args] of servers) {
  const t = new StdioClientTransport({ command: process.execPath, args: [N + pkg + "/" + script, ...args], env, stderr: "ignore" });
  const c = new Client({ name: "snapshot", version: "0" });
  try {
    await c.connect(t);
    const res = await c.listTools();
    const version = JSON.parse(fs.readFileSync(N + pkg + "/package.json")).version;
    for (const tool of res.tools) {
      out.push({ server: name, package: pkg + "@" + version, name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema });
    }
    console.error(name, res.tools.length);
  } catch (e) {
    console.error(name, "FAILED", e.message);
  }
  await c.close();
}
fs.writeFileSync("corpus-extra.json", JSON.stringify(out, null, 1) + "\n");
