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
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

import { startApprovalServe } from "../support/keel_serve_process.mjs";

const [keel, mockServer, sdkModule] = process.argv.slice(2);
const a2a = await import(sdkModule);
// The SDK's client for agents that speak A2A 0.3 (the JSON-RPC methods message/send, tasks/get, ...).
const legacyClient = await import(path.resolve(path.dirname(sdkModule), "../compat/v0_3/client/index.js"));

let failures = 0;
function check(ok, what, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || !detail ? "" : ": " + detail}`);
  if (!ok) failures++;
}

const token = "a2a-test-token-0123456789";
const served = await startApprovalServe({ keel, mockServer, token });
const { base, ws, env, modelFlags } = served;

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

  // A 0.3 client: the SDK's LegacyJsonRpcTransport speaks 0.3's wire and reads keel's answers back
  // through its own 0.3 translators, which check each task, message and part.
  const rawCard = await (await authFetch(`${base}/.well-known/agent-card.json`)).json();
  const { supportedInterfaces: _v1, ...cardAsV03 } = rawCard;
  check(legacyClient.isLegacyAgentCard(cardAsV03), "the card's 0.3 fields make a 0.3 card");
  const v03Card = legacyClient.parseLegacyAgentCard(cardAsV03);
  check(v03Card.supportedInterfaces?.[0]?.url === `${base}/a2a` && v03Card.supportedInterfaces[0].protocolVersion === "0.3.0",
        "a 0.3 client finds the JSON-RPC endpoint", JSON.stringify(v03Card.supportedInterfaces));
  check(v03Card.securitySchemes?.bearer?.scheme?.$case === "httpAuthSecurityScheme", "a 0.3 client reads the bearer scheme",
        JSON.stringify(v03Card.securitySchemes));
  const legacy = new legacyClient.LegacyJsonRpcTransport({ endpoint: `${base}/a2a`, fetchImpl: authFetch });
  const asked = await legacy.sendMessage(userMessage("write another note"));
  check(asked.status?.state === INPUT_REQUIRED && textOf(asked.status?.message?.parts).includes("fs_write"),
        "0.3 message/send: the task needs input", JSON.stringify(asked.status));
  const deniedV03 = await legacy.sendMessage(userMessage("no, not now", { taskId: asked.id, contextId: asked.contextId }));
  check(deniedV03.id === asked.id && deniedV03.status?.state === COMPLETED && textOf(deniedV03.artifacts?.[0]?.parts) === "done",
        "0.3: answering no completes the task", JSON.stringify(deniedV03.status));
  const v03Events = [];
  for await (const ev of legacy.sendMessageStream(userMessage("thanks", { contextId: asked.contextId }))) v03Events.push(ev);
  const v03Kinds = v03Events.map((e) => e.payload?.$case);
  const v03Last = v03Events.at(-1)?.payload;
  check(v03Kinds[0] === "task" && v03Last?.$case === "statusUpdate" && v03Last.value.status?.state === COMPLETED,
        "0.3 message/stream: the task, then its updates to completed", JSON.stringify(v03Kinds));
  const v03Text = v03Events.filter((e) => e.payload?.$case === "artifactUpdate").map((e) => textOf(e.payload.value.artifact?.parts)).join("");
  check(v03Text === "done", "0.3: the answer streams as artifact updates", v03Text);
  const v03Got = await legacy.getTask({ id: asked.id, historyLength: 10 });
  check(v03Got.status?.state === COMPLETED && v03Got.history?.some((m) => textOf(m.parts) === "write another note"),
        "0.3 tasks/get gives the task with its history", JSON.stringify(v03Got.history));
  const v03Waiting = await legacy.sendMessage(userMessage("write a third note"));
  const v03Cancelled = await legacy.cancelTask({ id: v03Waiting.id });
  check(v03Cancelled.status?.state === CANCELED, "0.3 tasks/cancel cancels a waiting task", JSON.stringify(v03Cancelled.status));
  check((await errorCode(legacy.getTask({ id: "r_nope" }))) === -32001, "0.3: an unknown task is -32001");

  // The context is a keel session: keel chat continues it.
  const chat = spawnSync(keel, ["chat", "--session", first.contextId, ...modelFlags], { env, cwd: ws, input: "one more\n", encoding: "utf8", timeout: 30000 });
  check(chat.status === 0 && chat.stdout.includes("done"), "keel chat --session continues the A2A context",
        `exit ${chat.status}; stdout ${chat.stdout}; stderr ${chat.stderr}`);
} catch (e) {
  check(false, "the run of checks", e.stack ?? String(e));
} finally {
  await served.stop();
}
if (failures > 0) console.log(`${failures} check(s) failed`);
process.exit(failures);
