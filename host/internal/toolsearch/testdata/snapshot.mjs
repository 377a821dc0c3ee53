import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import fs from "node:fs";
const M = "node_modules/@modelcontextprotocol/";
const env = { ...process.env, GITHUB_PERSONAL_ACCESS_TOKEN: "x", GITLAB_PERSONAL_ACCESS_TOKEN: "x", SLACK_BOT_TOKEN: "x", SLACK_TEAM_ID: "x", MEMORY_FILE_PATH: "/tmp/snap/memory.json" };
const servers = [
  ["everything", M + "server-everything/dist/index.js", ["stdio"]],
  ["filesystem", M + "server-filesystem/dist/index.js", ["/tmp/snap"]],
  ["memory", M + "server-memory/dist/index.js", []],
  ["github", M + "server-github/dist/index.js", []],
  ["gitlab", M + "server-gitlab/dist/index.js", []],
  ["slack", M + "server-slack/dist/index.js", []],
  ["sequential-thinking", M + "server-sequential-thinking/dist/index.js", []],
  ["playwright", "node_modules/@playwright/mcp/cli.js", []],
];
const pkgs = { playwright: "@playwright/mcp" };
const out = [];
for (const [name, script, args] of servers) {
  const t = new StdioClientTransport({ command: process.execPath, args: [script, ...args], env, stderr: "ignore" });
  const c = new Client({ name: "snapshot", version: "0" });
  try {
    await c.connect(t);
    const res = await c.listTools();
    const pkgName = pkgs[name] ?? "@modelcontextprotocol/server-" + name;
    const version = JSON.parse(fs.readFileSync((name === "playwright" ? "node_modules/@playwright/mcp" : M + "server-" + name) + "/package.json")).version;
    for (const tool of res.tools) {
      out.push({ server: name, package: pkgName + "@" + version, name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema });
    }
    console.error(name, res.tools.length);
  } catch (e) {
    console.error(name, "FAILED", e.message);
  }
  await c.close();
}
fs.writeFileSync("corpus.json", JSON.stringify(out, null, 1) + "\n");
