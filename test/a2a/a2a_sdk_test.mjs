// keel serve as an A2A v1.0 agent, driven by the official A2A JS SDK's client (@a2a-js/sdk),
// against keel_mock_model_server: a model that calls fs_write once per turn and then answers
// "done". keel serve runs with --approve-mode confirm, so the call needs an approval.
//
//   node a2a_sdk_test.mjs KEEL MOCK_SERVER SDK_CLIENT_MODULE   (test/support/node_peer_test.sh runs it)
//
// Checks: the agent card; a task that needs input (the approval) and goes on when the other agent
// answers "yes"; the next turn in the same context, streamed; GetTask with history; CancelTask on a
// task waiting for input; the protocol's errors (unknown task, a task that cannot be cancelled,
// unknown method, malformed JSON, another protocol version, no token); and `keel chat --session`
// continuing the context afterwards. Every check runs; the exit code is the number that failed.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [keel, mockServer, sdkModule] = process.argv.slice(2);
const a2a = await import(sdkModule);

let failures = 0;
function check(ok, what, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || !detail ? "" : ": " + detail}`);
  if (!ok) failures++;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "keel-a2a-"));
const home = path.join(work, "home");
const ws = path.join(work, "ws");
for (const d of [home, ws]) fs.mkdirSync(d, { recursive: true });
const token = "a2a-test-token-0123456789";

function waitForLine(proc, stream, pattern) {
  return new Promise((resolve, reject) => {
    let out = "";
    proc[stream].on("data", (d) => {
      out += d;
      const m = out.match(pattern);
      if (m) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error(`exited (${code}) before printing ${pattern}: ${out}`)));
  });
}

const mock = spawn(mockServer, ["--tool", "fs_write", "--args", '{"path":"note.txt","content":"hi"}'], {
  stdio: ["pipe", "pipe", "inherit"],
});
const modelUrl = await waitForLine(mock, "stdout", /listening (http:\/\/127\.0\.0\.1:\d+\/v1)/);
const env = { PATH: process.env.PATH, HOME: home, KEEL_HOME: path.join(home, ".keel"), XDG_CONFIG_HOME: path.join(home, ".config") };
const modelFlags = ["--model", "mock-steps-1", "--base-url", modelUrl, "--api-key", "test-key"];
const serve = spawn(keel, ["serve", "--port", "0", "--token", token, "--approve-mode", "confirm", ...modelFlags], {
  cwd: ws,
  env,
  stdio: ["ignore", "ignore", "pipe"],
});
const base = await waitForLine(serve, "stderr", /listening on (http:\/\/127\.0\.0\.1:\d+)/);

const authFetch = (url, init = {}) => {
  const headers = new Headers(init.headers ?? {});
  headers.set("Authorization", `Bearer ${token}`);
  return fetch(url, { ...init, headers });
};
const factory = new a2a.ClientFactory({
  transports: [new a2a.JsonRpcTransportFactory({ fetchImpl: authFetch })],
  cardResolver: new a2a.DefaultAgentCardResolver({ fetchImpl: authFetch }),
});

// The SDK hands back its own objects: states as enum numbers, parts as {content: {$case, value}}.
const COMPLETED = 3, CANCELED = 5, INPUT_REQUIRED = 6;
const textOf = (parts = []) => parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
const userMessage = (text, extra = {}) => ({
  message: { messageId: `m-${Math.random().toString(16).slice(2)}`, role: 1 /* ROLE_USER */, parts: [{ content: { $case: "text", value: text } }], ...extra },
});
async function errorCode(promise) {
  try {
    await promise;
    return "resolved";
  } catch (e) {
    return e.envelopeCode ?? e.code ?? String(e);  // the SDK keeps the JSON-RPC code as envelopeCode
  }
}

try {
  const client = await factory.createFromUrl(base);
  const card = await client.getAgentCard();
  check(card.name === "keel", "the agent card names keel", JSON.stringify(card.name));
  check(card.capabilities?.streaming === true, "the card says keel streams");
  check(card.skills?.length >= 1, "the card lists a skill per profile", JSON.stringify(card.skills));
  check(card.supportedInterfaces?.some((i) => i.protocolBinding === "JSONRPC" && i.url.endsWith("/a2a") && i.protocolVersion === "1.0"),
        "the card offers JSON-RPC 1.0 at /a2a", JSON.stringify(card.supportedInterfaces));

  // A task that needs input: the policy asks about fs_write; the other agent approves.
  const first = await client.sendMessage(userMessage("write a note"));
  check(first.status?.state === INPUT_REQUIRED, "the task needs input (the approval)", JSON.stringify(first.status));
  check(textOf(first.status?.message?.parts).includes("fs_write"), "the status message says what needs approving",
        textOf(first.status?.message?.parts));
  check(!fs.existsSync(path.join(ws, "note.txt")), "nothing was written before the approval");
  const approved = await client.sendMessage(userMessage("yes", { taskId: first.id, contextId: first.contextId }));
  check(approved.id === first.id && approved.status?.state === COMPLETED, "answering yes completes the same task",
        JSON.stringify(approved.status));
  check(textOf(approved.artifacts?.[0]?.parts) === "done", "the answer is the task's artifact", JSON.stringify(approved.artifacts));
  check(fs.existsSync(path.join(ws, "note.txt")), "the approved call wrote note.txt");

  // The next turn in the same context, streamed.
  const events = [];
  for await (const ev of client.sendMessageStream(userMessage("thanks", { contextId: first.contextId }))) events.push(ev);
  const kinds = events.map((e) => e.payload?.$case);
  check(kinds[0] === "task", "the stream starts with the task", JSON.stringify(kinds));
  const last = events.at(-1)?.payload;
  check(last?.$case === "statusUpdate" && last.value.status?.state === COMPLETED, "the stream ends with the completed status",
        JSON.stringify(kinds));
  const streamedText = events.filter((e) => e.payload?.$case === "artifactUpdate").map((e) => textOf(e.payload.value.artifact?.parts)).join("");
  check(streamedText === "done", "the answer streams as artifact updates", streamedText);
  const secondTask = events[0]?.payload?.value;
  check(secondTask?.contextId === first.contextId && secondTask?.id !== first.id, "a new task in the same context");

  // GetTask: the first task with its history.
  const got = await client.getTask({ id: first.id, historyLength: 10 });
  check(got.status?.state === COMPLETED && got.history?.some((m) => textOf(m.parts) === "write a note"),
        "GetTask gives the task with its history", JSON.stringify(got.history));

  // CancelTask on a task waiting for input.
  const waiting = await client.sendMessage(userMessage("write a note again"));
  check(waiting.status?.state === INPUT_REQUIRED, "another task waits for its approval", JSON.stringify(waiting.status));
  const cancelled = await client.cancelTask({ id: waiting.id });
  check(cancelled.status?.state === CANCELED, "CancelTask cancels it", JSON.stringify(cancelled.status));

  // The protocol's errors.
  check((await errorCode(client.getTask({ id: "r_nope" }))) === -32001, "an unknown task is -32001 TaskNotFound");
  check((await errorCode(client.cancelTask({ id: first.id }))) === -32002, "a completed task is -32002 TaskNotCancelable");
  const raw = async (body, headers = {}) => {
    const r = await fetch(`${base}/a2a`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
      body,
    });
    return { status: r.status, json: await r.json().catch(() => null) };
  };
  check((await raw('{"jsonrpc":"2.0","id":7,"method":"message/teleport","params":{}}')).json?.error?.code === -32601,
        "an unknown method is -32601");
  check((await raw("{not json")).json?.error?.code === -32700, "malformed JSON is -32700");
  check((await raw('{"jsonrpc":"2.0","id":8,"method":"GetTask","params":{"id":"x"}}', { "A2A-Version": "0.3" })).json?.error?.code === -32009,
        "another protocol version is -32009 VersionNotSupported");
  check((await raw('{"jsonrpc":"2.0","id":9,"method":"SendMessage","params":{"message":{"parts":[{"url":"file:///x"}]}}}')).json?.error?.code === -32005,
        "a file part is -32005 ContentTypeNotSupported");
  const noToken = await fetch(`${base}/a2a`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  check(noToken.status === 401, "a request without the token is 401", String(noToken.status));
  const card401 = await fetch(`${base}/.well-known/agent-card.json`);
  check(card401.status === 401, "the card needs the token too", String(card401.status));

  // The context is a keel session: keel chat continues it.
  const chat = spawnSync(keel, ["chat", "--session", first.contextId, ...modelFlags], { env, cwd: ws, input: "one more\n", encoding: "utf8", timeout: 30000 });
  check(chat.status === 0 && chat.stdout.includes("done"), "keel chat --session continues the A2A context",
        `exit ${chat.status}; stdout ${chat.stdout}; stderr ${chat.stderr}`);
} catch (e) {
  check(false, "the run of checks", e.stack ?? String(e));
} finally {
  serve.kill("SIGTERM");
  await new Promise((resolve) => serve.on("exit", resolve));
  mock.stdin.end();
  fs.rmSync(work, { recursive: true, force: true });
}
if (failures > 0) console.log(`${failures} check(s) failed`);
process.exit(failures);
