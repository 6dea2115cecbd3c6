// Parse Mermaid diagrams with Mermaid itself (the library GitHub renders them with); print what
// it read as JSON. MERMAID_MODULES names the node_modules folder that holds mermaid and jsdom.
// stdin: a JSON list of diagram texts. stdout: per diagram {"error": message} or
// {"type", "vertices": [{id, text, classes}], "edges": [{start, end, text}], "subgraphs": [...],
//  "classes": [names]}.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const require = createRequire(`${process.env.MERMAID_MODULES}/`);
// mermaid sanitises labels with DOMPurify, which needs a DOM: jsdom gives it one, as a page would
const { JSDOM } = require("jsdom");
const { window } = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await import(pathToFileURL(require.resolve("mermaid")).href);
mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });

const out = [];
for (const text of JSON.parse(readFileSync(0, "utf8"))) {
  try {
    const { diagramType } = await mermaid.parse(text);
    const { db } = await mermaid.mermaidAPI.getDiagramFromText(text);
    out.push({
      type: diagramType,
      vertices: [...db.getVertices().values()].map((v) => ({ id: v.id, text: v.text, classes: v.classes })),
      edges: db.getEdges().map((e) => ({ start: e.start, end: e.end, text: e.text, stroke: e.stroke })),
      subgraphs: db.getSubGraphs().map((s) => ({ id: s.id, title: s.title, nodes: s.nodes })),
      classes: [...db.getClasses().keys()],
    });
  } catch (error) {
    out.push({ error: String(error.message || error).split("\n").slice(0, 4).join(" ") });
  }
}
console.log(JSON.stringify(out));
