// keel serve's AG-UI endpoint with approvals, driven by the AG-UI client (@ag-ui/client's
// HttpAgent) against keel_mock_model_server: a model that calls fs_write once and then answers
// "done". keel serve runs with --approve-mode confirm, so the call waits for a person's decision.
//
//   node agui_serve_approval_test.mjs KEEL MOCK_SERVER AGUI_CLIENT_MODULE   (test/support/node_peer_test.sh runs it)
//
// Checks: while the run streams, CUSTOM keel.approval_requested names the approval, which
// GET /api/approvals lists; a decision posted to its decideUrl (with the server's token; without
// it: 401) lets the same run go on (an ask_user question likewise, through /api/questions): an approved call writes the file, a denied one writes nothing
// and the model reads the reason; `keel chat --session` continues the thread's session; the client validates every event against the protocol's schema
// and any warning fails the test. Every check runs; the exit status is 1 when one failed.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { check, finish } from "./client_checks.mjs";
import { startApprovalServe, startServe } from "../support/keel_serve_process.mjs";

const [keel, mockServer, clientModule] = process.argv.slice(2);
const { HttpAgent } = await import(pathToFileURL(clientModule).href);

const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
  warnings.push(args.map(String).join(" "));
  warn(...args);
};

const token = "agui-approval-token-0123456789";
const served = await startApprovalServe({ keel, mockServer, token });
const auth = { Authorization: `Bearer ${token}` };
const note = path.join(served.ws, "note.txt");

// One run of a new thread; `decide(request)` is called with the keel.approval_requested value and
// returns the decision's body. Resolves with the events and what happened around the decision.
async function runDeciding(threadId, decide) {
  const agent = new HttpAgent({ url: `${served.base}/agui`, headers: auth, threadId });
  agent.addMessage({ id: "u1", role: "user", content: "write a note" });
  const events = [];
  let decided = null;
  const result = await agent.runAgent({ runId: `run-${threadId}` }, {
    onEvent: ({ event }) => {
      events.push(event);
      if (event.type === "CUSTOM" && event.name === "keel.approval_requested") {
        decided = (async () => {
          const before = fs.existsSync(note);
          const listed = await (await fetch(`${served.base}/api/approvals`, { headers: auth })).json();
          const noToken = await fetch(`${served.base}${event.value.decideUrl}`, {
            method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ decision: "allow" }),
          });
          const answer = await fetch(`${served.base}${event.value.decideUrl}`, {
            method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify(decide(event.value)),
          });
          return { before, listed, noTokenStatus: noToken.status, status: answer.status, body: await answer.json() };
        })();
      }
    },
  });
  return { events, result, decided: decided && (await decided), messages: agent.messages };
}

try {
  const denied = await runDeciding("thread-deny", () => ({ decision: "deny", reason: "not today" }));
  await check("the stream asks for the approval with its id and where to decide", async () => {
    const asked = denied.events.filter((e) => e.type === "CUSTOM" && e.name === "keel.approval_requested");
    assert.equal(asked.length, 1);
    assert.equal(asked[0].value.toolCallName, "fs_write");
    assert.deepEqual(JSON.parse(asked[0].value.arguments), { path: "note.txt", content: "hi" });
    assert.equal(asked[0].value.decideUrl, `/api/approvals/${asked[0].value.approvalId}`);
    const start = denied.events.find((e) => e.type === "TOOL_CALL_START");
    assert.equal(start.toolCallId, asked[0].value.toolCallId);
  });
  await check("GET /api/approvals lists the waiting call", async () => {
    assert.ok(denied.decided, "no approval was asked");
    assert.ok(denied.decided.listed.approvals.some((a) => a.id === denied.events.find((e) => e.type === "CUSTOM").value.approvalId),
              JSON.stringify(denied.decided.listed));
  });
  await check("a decision without the token is 401", async () => assert.equal(denied.decided.noTokenStatus, 401));
  await check("a denial ends the wait: nothing is written and the model reads the reason", async () => {
    assert.equal(denied.decided.status, 200, JSON.stringify(denied.decided.body));
    assert.equal(fs.existsSync(note), false);
    const result = denied.events.find((e) => e.type === "TOOL_CALL_RESULT");
    assert.match(result.content, /not today/);
    const verdict = denied.events.find((e) => e.type === "CUSTOM" && e.name === "keel.approval_decided");
    assert.equal(verdict.value.verdict, "deny");
    assert.equal(denied.events.at(-1).type, "RUN_FINISHED");
    assert.equal(denied.messages.at(-1).content, "done");
  });

  const approved = await runDeciding("thread-allow", () => ({ decision: "allow" }));
  await check("an approval lets the same run go on and the call runs", async () => {
    assert.ok(approved.decided, "no approval was asked");
    assert.equal(approved.decided.before, false, "the file was written before the decision");
    assert.equal(approved.decided.status, 200, JSON.stringify(approved.decided.body));
    assert.equal(fs.readFileSync(note, "utf8"), "hi");
    const verdict = approved.events.find((e) => e.type === "CUSTOM" && e.name === "keel.approval_decided");
    assert.equal(verdict.value.verdict, "allow");
    assert.equal(approved.events.at(-1).type, "RUN_FINISHED");
    assert.equal(approved.messages.at(-1).content, "done");
    const listed = await (await fetch(`${served.base}/api/approvals`, { headers: auth })).json();
    assert.deepEqual(listed.approvals, []);
  });
  await check("keel chat --session continues the AG-UI thread's session", async () => {
    const session = approved.events.find((e) => e.type === "STATE_SNAPSHOT").snapshot.keel.session_id;
    assert.match(session, /\S/);
    const chat = spawnSync(keel, ["chat", "--session", session, ...served.modelFlags],
                           { env: served.env, cwd: served.ws, input: "one more\n", encoding: "utf8", timeout: 30000 });
    assert.equal(chat.status, 0, chat.stderr);
    assert.match(chat.stdout, /done/);
  });
  // An ask_user question waits the same way, answered through /api/questions.
  const asking = await startServe({
    keel,
    mockServer,
    mockArgs: ["--tool", "ask_user", "--args", '{"question":"Which colour?","options":["red","blue"]}'],
    token,
  });
  try {
    const agent = new HttpAgent({ url: `${asking.base}/agui`, headers: auth, threadId: "thread-ask" });
    agent.addMessage({ id: "u1", role: "user", content: "ask me a colour" });
    const events = [];
    let answered = null;
    await agent.runAgent({ runId: "run-ask" }, {
      onEvent: ({ event }) => {
        events.push(event);
        if (event.type === "CUSTOM" && event.name === "keel.question_asked") {
          answered = fetch(`${asking.base}${event.value.answerUrl}`, {
            method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify({ option_index: 1 }),
          }).then((r) => r.status);
        }
      },
    });
    await check("an ask_user question is shown and answered through /api/questions while the run waits", async () => {
      const asked = events.find((e) => e.type === "CUSTOM" && e.name === "keel.question_asked");
      assert.ok(asked, JSON.stringify(events.map((e) => e.type)));
      assert.equal(asked.value.question, "Which colour?");
      assert.deepEqual(asked.value.options, ["red", "blue"]);
      assert.equal(await answered, 200);
      const result = events.find((e) => e.type === "TOOL_CALL_RESULT");
      assert.match(result.content, /blue/);
      assert.equal(events.at(-1).type, "RUN_FINISHED");
    });
  } finally {
    await asking.stop();
  }

  await check("the client accepted every event without a warning", async () => assert.deepEqual(warnings, []));
} catch (e) {
  await check("the run of checks", async () => { throw e; });
} finally {
  await served.stop();
}
finish("agui_serve_approval");
