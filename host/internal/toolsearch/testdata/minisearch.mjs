// The MiniSearch baseline for the need sets (issue 28): MiniSearch's
// defaults plus prefix and fuzzy matching, a boost for the tool's name,
// over the same fields the index reads. Run from a folder whose
// node_modules has minisearch:
//   NODE_PATH=that/node_modules node minisearch.mjs [testdata dir]
// It prints, per need set, recall@1, recall@5 and MRR (top 10) on all
// needs and on those the Go test counts as sharing no word (it is given
// that list on stdin as JSON: {"set": ["query", ...]}, whose keys are
// the sets to measure, or measures the first three and counts all).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
const require = createRequire(path.join(process.env.NODE_PATH ?? ".", "x.js"));
const MiniSearch = require("minisearch");
const dir = process.argv[2] ?? ".";
const read = (f) => JSON.parse(fs.readFileSync(path.join(dir, f)));
const tools = [...read("corpus.json"), ...read("corpus-extra.json")];
const docs = tools.map((t) => {
  const props = t.inputSchema?.properties ?? {};
  return {
    id: `mcp__${t.server}__${t.name}`,
    name: `mcp__${t.server}__${t.name}`.replace(/[_-]+/g, " "),
    description: t.description ?? "",
    params: Object.entries(props).map(([k, v]) => `${k} ${v?.description ?? ""}`).join(" "),
  };
});
const ms = new MiniSearch({ fields: ["name", "description", "params"], storeFields: [] });
ms.addAll(docs);
let noShared = {};
try { noShared = JSON.parse(fs.readFileSync(0, "utf8") || "{}"); } catch { noShared = {}; }
const out = {};
const sets = Object.keys(noShared).length ? Object.keys(noShared) : ["needs-tuning", "needs-heldout", "needs-heldout-b"];
for (const set of sets) {
  const needs = read(set + ".json");
  const fig = (keep) => {
    let n = 0, at1 = 0, at5 = 0, mrr = 0;
    for (const need of needs) {
      if (!keep(need)) continue;
      n++;
      const want = need.accept.map((a) => { const [s, t] = a.split("/"); return `mcp__${s}__${t}`; });
      const hits = ms.search(need.query, { boost: { name: 2 }, prefix: true, fuzzy: 0.2 }).slice(0, 10).map((h) => h.id);
      const pos = hits.findIndex((id) => want.includes(id));
      if (pos === 0) at1++;
      if (pos >= 0 && pos < 5) at5++;
      if (pos >= 0) mrr += 1 / (pos + 1);
    }
    return { N: n, At1: at1 / n, At5: at5 / n, MRR: mrr / n };
  };
  const ns = new Set(noShared[set] ?? []);
  out[set] = { All: fig(() => true), NoShared: ns.size ? fig((q) => ns.has(q.query)) : null };
}
console.log(JSON.stringify(out));
