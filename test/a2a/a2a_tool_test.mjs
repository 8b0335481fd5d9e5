// keel calling a remote agent over A2A v1.0: the remote agent is served by the official SDK
// (@a2a-js/sdk: an AgentExecutor behind its DefaultRequestHandler and JsonRpcTransportHandler, on
// Node's own http server, 127.0.0.1, a free port); keel is the real `keel run`, its model
// keel_mock_model_server scripted to call the agent's tool once and then answer "done".
//
//   node a2a_tool_test.mjs KEEL MOCK_SERVER SDK_SERVER_MODULE   (test/support/node_peer_test.sh runs it)
//
// The agents, as a user would declare them: `echo` in the user config (with a bearer token from
// the environment), `sleepy` in the workspace keel.yaml (no token, timeout_ms 3000). The executor
// answers by the message text: anything → a completed task whose artifact echoes it; "ask me" →
// input-required ("Which city?"); "slow" → working, completed 400 ms later (keel polls GetTask);
// "hang" → working until cancelled (keel times out and sends CancelTask).
//
// Checks: `keel tools list` describes a2a_echo from the card; each run's tool_result (keel --json)
// holds the remote answer and the ids; what the SDK server received (the text, the A2A-Version
// header, the token only where configured, the context id of a follow-up, GetTask, CancelTask).
// Every check runs; the exit code is the number that failed.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const [keel, mockServer, serverModule] = process.argv.slice(2);
const sdkDir = path.resolve(path.dirname(serverModule), "../..");  // .../@a2a-js/sdk from its dist/server/index.js
const a2a = await import(path.join(sdkDir, "dist/index.js"));
const a2aServer = await import(path.join(sdkDir, "dist/server/index.js"));

let failures = 0;
function check(ok, what, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || !detail ? "" : ": " + detail}`);
  if (!ok) failures++;
}

const TOKEN = "echo-token-8f3a2c";

// ---------------------------------------------------------------- the remote agent (SDK classes)
const received = [];  // {text, taskId, contextId, messageTaskId}
const cancelled = [];
const rpcSeen = [];   // {method, params, headers}
const cardSeen = [];  // headers of card requests
const hanging = new Map();  // taskId -> ends the hanging execute()

function textOf(message) {
  return (message.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}
function agentMessage(ctx, text) {
  return { role: "ROLE_AGENT", messageId: `m-${Date.now()}-${Math.random()}`, taskId: ctx.taskId, contextId: ctx.contextId, parts: [{ text }] };
}
function taskEvent(ctx, state, { artifact, question } = {}) {
  const wire = { id: ctx.taskId, contextId: ctx.contextId, status: { state } };
  if (question) wire.status.message = agentMessage(ctx, question);
  if (artifact) wire.artifacts = [{ artifactId: "answer", parts: [{ text: artifact }] }];
  return a2aServer.AgentEvent.task(a2a.Task.fromJSON(wire));
}

class TestExecutor {
  async execute(ctx, bus) {
    const text = textOf(ctx.userMessage);
    received.push({ text, taskId: ctx.taskId, contextId: ctx.contextId, messageTaskId: ctx.userMessage.taskId });
    if (text === "ask me") {
      bus.publish(taskEvent(ctx, "TASK_STATE_INPUT_REQUIRED", { question: "Which city?" }));
      bus.finished();
    } else if (text === "slow") {
      bus.publish(taskEvent(ctx, "TASK_STATE_WORKING"));
      await new Promise((r) => setTimeout(r, 400));
      bus.publish(a2aServer.AgentEvent.artifactUpdate(a2a.TaskArtifactUpdateEvent.fromJSON({
        taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: "answer", parts: [{ text: "slow but done" }] } })));
      bus.publish(a2aServer.AgentEvent.statusUpdate(a2a.TaskStatusUpdateEvent.fromJSON({
        taskId: ctx.taskId, contextId: ctx.contextId, status: { state: "TASK_STATE_COMPLETED" } })));
      bus.finished();
    } else if (text === "hang") {
      // Working until cancelled: the executor stays running, so the SDK hands CancelTask to cancelTask().
      bus.publish(taskEvent(ctx, "TASK_STATE_WORKING"));
      await new Promise((resolve) => hanging.set(ctx.taskId, resolve));
    } else {
      const earlier = received.find((r) => r.contextId === ctx.contextId && r.taskId !== ctx.taskId);
      const answer = earlier ? `weather in ${text}: sunny` : `echo: ${text}`;
      bus.publish(taskEvent(ctx, "TASK_STATE_COMPLETED", { artifact: answer }));
      bus.finished();
    }
  }
  async cancelTask(taskId, bus) {
    cancelled.push(taskId);
    const task = received.find((r) => r.taskId === taskId);
    bus.publish(a2aServer.AgentEvent.statusUpdate(a2a.TaskStatusUpdateEvent.fromJSON({
      taskId, contextId: task?.contextId ?? "", status: { state: "TASK_STATE_CANCELED" } })));
    bus.finished();
    hanging.get(taskId)?.();
  }
}

function sendJson(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

let card;
const httpServer = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks).toString("utf8");
  if (req.headers.authorization !== undefined && req.headers.authorization !== `Bearer ${TOKEN}`) {
    return sendJson(res, 401, { error: "bad token" });
  }
  if (req.method === "GET" && req.url === "/.well-known/agent-card.json") {
    cardSeen.push(req.headers);
    return sendJson(res, 200, a2a.AgentCard.toJSON(card));
  }
  if (req.method !== "POST" || req.url !== "/a2a/jsonrpc") return sendJson(res, 404, { error: "not found" });
  let rpc;
  try {
    rpc = JSON.parse(body);
  } catch {
    return sendJson(res, 200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Invalid JSON payload." } });
  }
  rpcSeen.push({ method: rpc.method, params: rpc.params, headers: req.headers });
  const context = a2aServer.defaultServerCallContextBuilder({
    extensions: [], user: new a2aServer.UnauthenticatedUser(), headers: req.headers,
    requestedVersion: req.headers["a2a-version"] || undefined,
  });
  try {
    a2aServer.validateVersion(context.requestedVersion, card, "JSONRPC");
  } catch (e) {
    return sendJson(res, 200, { jsonrpc: "2.0", id: rpc.id ?? null, error: a2aServer.JsonRpcTransportHandler.mapToJSONRPCError(e) });
  }
  const out = await transport.handle(rpc, context);
  if (typeof out?.[Symbol.asyncIterator] === "function") {
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    for await (const event of out) res.write(`data: ${JSON.stringify(event)}\n\n`);
    return res.end();
  }
  sendJson(res, 200, out);
});
await new Promise((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
const agentUrl = `http://127.0.0.1:${httpServer.address().port}`;
card = a2a.AgentCard.fromJSON({
  name: "Echo agent",
  description: "Echoes what it is told; asks a question when told 'ask me'.",
  version: "1.0.0",
  supportedInterfaces: [{ url: `${agentUrl}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "echo", description: "says the message back", tags: ["test"] }],
});
const handler = new a2aServer.DefaultRequestHandler(card, new a2aServer.InMemoryTaskStore(), new TestExecutor());
const transport = new a2aServer.JsonRpcTransportHandler(handler);

// ---------------------------------------------------------------- keel's side
const work = fs.mkdtempSync(path.join(os.tmpdir(), "keel-a2a-"));
const home = path.join(work, "home");
const ws = path.join(work, "ws");
fs.mkdirSync(path.join(home, ".config", "keel"), { recursive: true });
fs.mkdirSync(ws, { recursive: true });
fs.writeFileSync(path.join(home, ".config", "keel", "config.yaml"),
  `a2a_agents:\n  - name: echo\n    url: ${agentUrl}\n    token_env: ECHO_AGENT_TOKEN\n    timeout_ms: 20000\n`);
fs.writeFileSync(path.join(ws, "keel.yaml"), `a2a_agents:\n  - {name: sleepy, url: '${agentUrl}/', timeout_ms: 3000}\n`);
const env = {
  PATH: process.env.PATH, HOME: home, KEEL_HOME: path.join(home, ".keel"), XDG_CONFIG_HOME: path.join(home, ".config"),
  ECHO_AGENT_TOKEN: TOKEN,
};

function run(cmd, args) {
  return new Promise((resolve) => {
    const proc = spawn(cmd, args, { env, cwd: ws, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    proc.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

// One `keel run` whose model calls `tool` once with `args`; the tool_result event and the run.
async function keelCallsTool(tool, args) {
  const mock = spawn(mockServer, ["--tool", tool, "--args", JSON.stringify(args)], { stdio: ["pipe", "pipe", "inherit"] });
  const baseUrl = await new Promise((resolve, reject) => {
    let out = "";
    mock.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening (http:\/\/127\.0\.0\.1:\d+\/v1)/);
      if (m) resolve(m[1]);
    });
    mock.on("exit", () => reject(new Error("the mock model server exited")));
  });
  const r = await run(keel, ["run", "--json", "--workspace", ws, "--model", "mock-steps-1", "--base-url", baseUrl,
                             "--api-key", "test-key", `use ${tool}`]);
  mock.stdin.end();
  const events = r.stdout.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  const result = events.find((e) => e.type === "tool_result" && e.name === tool);
  return { ...r, events, result };
}

const ids = (content) => ({
  context: content?.match(/^context_id: (.+)$/m)?.[1],
  task: content?.match(/^task_id: (.+)$/m)?.[1],
});

try {
  // The tool list: the description comes from the card.
  const list = await run(keel, ["tools", "list", "--json", "--workspace", ws]);
  let tools = [];
  try { tools = JSON.parse(list.stdout); } catch { /* checked below */ }
  const echoTool = tools.find((t) => t.name === "a2a_echo");
  check(echoTool?.description?.includes("Echoes what it is told") && echoTool?.description?.includes("echo (says the message back)"),
        "keel tools list describes a2a_echo from its agent card", list.stdout.slice(0, 400) + list.stderr);
  check(tools.some((t) => t.name === "a2a_sleepy"), "the workspace keel.yaml's agent is a tool too");
  check(cardSeen.length >= 1 && cardSeen.some((h) => h.authorization === `Bearer ${TOKEN}`),
        "the card was read with echo's token", JSON.stringify(cardSeen.map((h) => h.authorization ?? null)));

  // A completed task: the echo comes back into the run.
  const a = await keelCallsTool("a2a_echo", { message: "hello from keel" });
  check(a.code === 0, "keel run exits 0", `exit ${a.code}; stderr: ${a.stderr}`);
  check(a.result?.status === "ok", "the a2a_echo call succeeds", JSON.stringify(a.result));
  const first = received.find((r) => r.text === "hello from keel");
  check(first !== undefined, "the SDK server's executor received the message text", JSON.stringify(received));
  check(a.result?.content?.includes("echo: hello from keel"), "keel's tool result holds the remote answer", a.result?.content);
  check(first && ids(a.result?.content).task === first.taskId && ids(a.result?.content).context === first.contextId,
        "the result names the SDK's task and context ids", `${a.result?.content} vs ${JSON.stringify(first)}`);
  const sends = rpcSeen.filter((s) => s.method === "SendMessage");
  check(sends.length === 1 && sends[0].headers["a2a-version"] === "1.0", "keel sent SendMessage with A2A-Version: 1.0",
        JSON.stringify(rpcSeen.map((s) => [s.method, s.headers["a2a-version"]])));
  check(sends[0]?.headers.authorization === `Bearer ${TOKEN}`, "echo's requests carry its bearer token");
  check(sends[0]?.params?.message?.role === "ROLE_USER", "the message is a v1.0 user message", JSON.stringify(sends[0]?.params));
  check(a.events.some((e) => e.type === "run_finished" && e.answer === "done"), "the run ends with the model's answer",
        a.stdout.slice(-400));
  check(!a.stdout.includes(TOKEN), "the token never appears in keel's output");

  // Input required: keel hands the question back with the ids; a follow-up continues the context.
  const b = await keelCallsTool("a2a_echo", { message: "ask me" });
  check(b.result?.status === "ok" && b.result?.content?.startsWith("the remote agent asks: Which city?"),
        "an input-required task comes back as the agent's question", JSON.stringify(b.result));
  const asked = ids(b.result?.content);
  check(asked.context !== undefined && received.some((r) => r.text === "ask me" && r.contextId === asked.context),
        "the question carries the SDK's context id", b.result?.content);
  const c = await keelCallsTool("a2a_echo", { message: "Paris", context_id: asked.context });
  const followUp = received.find((r) => r.text === "Paris");
  check(followUp?.contextId === asked.context, "the follow-up reached the SDK in the same context", JSON.stringify(followUp));
  check(c.result?.content?.includes("weather in Paris: sunny"), "the follow-up's answer comes back", JSON.stringify(c.result));

  // A slow task: keel polls GetTask until it completes (the workspace agent, without a token).
  const before = rpcSeen.length;
  const d = await keelCallsTool("a2a_sleepy", { message: "slow" });
  const slowCalls = rpcSeen.slice(before);
  check(d.result?.status === "ok" && d.result?.content?.includes("slow but done"), "a working task is polled to its answer",
        JSON.stringify(d.result));
  check(slowCalls.some((s) => s.method === "GetTask"), "keel polled with GetTask", JSON.stringify(slowCalls.map((s) => s.method)));
  check(slowCalls.every((s) => s.headers.authorization === undefined), "the workspace agent gets no token");

  // A task that never ends: keel gives up after timeout_ms and cancels it.
  const e = await keelCallsTool("a2a_sleepy", { message: "hang" });
  const hung = received.find((r) => r.text === "hang");
  check(e.result?.status === "error" && e.result?.content?.includes("did not finish within timeout_ms 3000"),
        "a task past timeout_ms is a tool error saying so", JSON.stringify(e.result));
  check(hung !== undefined && cancelled.includes(hung.taskId), "keel sent CancelTask for the hanging task",
        `cancelled ${JSON.stringify(cancelled)}, task ${hung?.taskId}`);
  const cancelCall = rpcSeen.find((s) => s.method === "CancelTask");
  check(cancelCall?.params?.id === hung?.taskId, "CancelTask named the task", JSON.stringify(cancelCall?.params));
  check(e.result?.content?.includes("keel asked it to cancel the task"), "the error says the task was cancelled",
        e.result?.content);
} finally {
  httpServer.close();
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${failures === 0 ? "all passed" : failures + " failed"}`);
process.exit(failures);
