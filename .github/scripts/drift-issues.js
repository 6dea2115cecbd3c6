// Apply the drift audit's issue plan (merged/issues.json, written by `fabricops drift`):
// one issue per drifted or unmanaged device, updated in place, closed when the device is back
// in sync (or only pending). Only issues this audit opened are touched: each carries a marker
// `<!-- fabricops-drift device="NAME" -->` in its body; an issue people opened, even with the
// drift label, is never edited or closed. An unreachable device keeps its issue as it is.
const LABEL = "drift";
const MARKER = /<!-- fabricops-drift device="([^"]+)" -->/;

module.exports = async function applyIssuePlan({ github, context, plan }) {
  const { owner, repo } = context.repo;
  const open = await github.paginate(github.rest.issues.listForRepo, { owner, repo, state: "open", labels: LABEL });
  const ours = new Map();
  for (const issue of open) {
    const match = MARKER.exec(issue.body || "");
    if (match && !issue.pull_request) ours.set(match[1], issue);
  }
  const done = { opened: [], updated: [], closed: [] };
  for (const entry of plan) {
    const existing = ours.get(entry.device);
    if (entry.action === "open") {
      if (existing) {
        await github.rest.issues.update({ owner, repo, issue_number: existing.number, title: entry.title, body: entry.body });
        done.updated.push(entry.device);
      } else {
        await github.rest.issues.create({ owner, repo, title: entry.title, body: entry.body, labels: [LABEL] });
        done.opened.push(entry.device);
      }
    } else if (entry.action === "close" && existing) {
      const body = `Back in sync (${entry.status}) at the scheduled audit.`;
      await github.rest.issues.createComment({ owner, repo, issue_number: existing.number, body });
      await github.rest.issues.update({ owner, repo, issue_number: existing.number, state: "closed" });
      done.closed.push(entry.device);
    }
  }
  return done;
};
