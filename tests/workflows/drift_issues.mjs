// Run .github/scripts/drift-issues.js against an in-memory repository's issues.
// stdin: {"issues": [...open and closed issues...], "plan": [...issues.json...]}
// stdout: {"issues": [...after...], "calls": [...API calls made...], "done": {...}}
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const applyIssuePlan = require(process.argv[2]);
const { issues, plan } = JSON.parse(readFileSync(0, "utf8"));
const calls = [];
let next = Math.max(0, ...issues.map((i) => i.number)) + 1;
const find = (number) => issues.find((i) => i.number === number);
const github = {
  paginate: async (method, params) => method(params),
  rest: {
    issues: {
      listForRepo: async ({ state, labels }) =>
        issues.filter((i) => i.state === state && labels.split(",").every((l) => i.labels.includes(l))),
      create: async ({ title, body, labels }) => {
        calls.push(["create", title]);
        issues.push({ number: next++, title, body, labels, state: "open", comments: [] });
      },
      update: async ({ issue_number, ...fields }) => {
        calls.push(["update", issue_number, Object.keys(fields).sort().join(",")]);
        Object.assign(find(issue_number), fields);
      },
      createComment: async ({ issue_number, body }) => {
        calls.push(["comment", issue_number]);
        find(issue_number).comments.push(body);
      },
    },
  },
};
const context = { repo: { owner: "o", repo: "r" } };
const done = await applyIssuePlan({ github, context, plan });
console.log(JSON.stringify({ issues, calls, done }));
