// `keel acp` driven by the official ACP library (@agentclientprotocol/sdk, the client side an
// editor uses), against keel_mock_model_server: a model that calls fs_write once per turn and then
// answers "done". keel runs with --approve-mode confirm, so every call asks the editor.
//
//   node acp_sdk_test.mjs KEEL MOCK_SERVER SDK_MODULE   (test/support/node_peer_test.sh runs it)
//
// Checks: initialize; session/new; a turn with a permission request allowed in the editor (the
// tool runs, its card goes in_progress → completed, the answer streams, end_turn); a second turn
// on the same session; a denied call (not run, the card fails); session/cancel while a permission
// question is open (stopReason cancelled); session/load replaying the conversation; the protocol's
// errors for an unknown method and an unknown session; and `keel chat --session` continuing the
// session afterwards; and with an editor that offers its file system, fs_write and fs_read going
// through fs/write_text_file and fs/read_text_file instead of the disk. Every check runs; the exit
// code is the number that failed.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";

const [keel, mockServer, sdkModule] = process.argv.slice(2);
const acp = await import(sdkModule);

let failures = 0;
function check(ok, what, detail = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${ok || !detail ? "" : ": " + detail}`);
  if (!ok) failures++;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "keel-acp-"));
const home = path.join(work, "home");
const ws = path.join(work, "ws");
const wsDeny = path.join(work, "ws-deny");
const wsCancel = path.join(work, "ws-cancel");
for (const d of [home, ws, wsDeny, wsCancel]) fs.mkdirSync(d, { recursive: true });

// A mock model calling `tool` with `args`, in a process of its own; it stops when its stdin closes.
async function startMock(tool, args) {
  const proc = spawn(mockServer, ["--tool", tool, "--args", args], { stdio: ["pipe", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening (http:\/\/127\.0\.0\.1:\d+\/v1)/);
      if (m) resolve(m[1]);
    });
    proc.on("exit", () => reject(new Error("the mock model server exited")));
  });
  return { proc, url };
}
const { proc: mock, url: baseUrl } = await startMock("fs_write", '{"path":"note.txt","content":"hi"}');

// keel's environment: a home of its own, no provider keys from the caller.
const env = { PATH: process.env.PATH, HOME: home, KEEL_HOME: path.join(home, ".keel"), XDG_CONFIG_HOME: path.join(home, ".config") };
const modelFlags = ["--model", "mock-steps-1", "--base-url", baseUrl, "--api-key", "test-key"];
const agentProc = spawn(keel, ["acp", ...modelFlags, "--approve-mode", "confirm"], { env, stdio: ["pipe", "pipe", "pipe"] });
let agentErr = "";
agentProc.stderr.on("data", (d) => (agentErr += d));

// What the editor does with the agent's requests, per session: allow, reject, or hold (cancel test).
const permissionPlan = new Map();  // sessionId -> "allow" | "reject" | "hold"
const permissionAsked = [];
let releaseHeld = null;
const updates = new Map();  // sessionId -> [update]

const editor = acp
  .client({ name: "keel-acp-test" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    if (!updates.has(params.sessionId)) updates.set(params.sessionId, []);
    updates.get(params.sessionId).push(params.update);
  })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    permissionAsked.push(params);
    const plan = permissionPlan.get(params.sessionId) ?? "allow";
    if (plan === "reject") return { outcome: { outcome: "selected", optionId: "reject_once" } };
    if (plan === "hold") {
      await new Promise((resolve) => (releaseHeld = resolve));
      return { outcome: { outcome: "cancelled" } };
    }
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  });

const stream = acp.ndJsonStream(Writable.toWeb(agentProc.stdin), Readable.toWeb(agentProc.stdout));

const kinds = (sid) => (updates.get(sid) ?? []).map((u) => u.sessionUpdate);
const text = (sid, kind = "agent_message_chunk") =>
  (updates.get(sid) ?? []).filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join("");
async function rejects(promise, code) {
  try {
    await promise;
    return "resolved";
  } catch (e) {
    return e.code === code ? true : `code ${e.code}: ${e.message}`;
  }
}

let firstSession = "";
await editor.connectWith(stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
  });
  check(init.protocolVersion === 1, "initialize answers protocol version 1", JSON.stringify(init));
  check(init.agentCapabilities?.loadSession === true, "the agent can load sessions");
  check(init.agentInfo?.name === "keel", "the agent says it is keel");

  // A turn: the policy asks, the editor allows, the tool runs, the answer streams.
  const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
  firstSession = sessionId;
  check(/^s_/.test(sessionId), "session/new gives a keel session id", sessionId);
  const turn1 = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "write a note" }],
  });
  check(turn1.stopReason === "end_turn", "the turn ends with end_turn", JSON.stringify(turn1));
  const asked = permissionAsked.find((p) => p.sessionId === sessionId);
  check(asked?.toolCall?.kind === "edit" && asked?.toolCall?.rawInput?.path === "note.txt",
        "fs_write is put to the editor as an edit of note.txt", JSON.stringify(asked));
  check(asked?.options?.some((o) => o.kind === "allow_once") && asked?.options?.some((o) => o.kind === "reject_once"),
        "the permission request offers allow and reject");
  check(fs.existsSync(path.join(ws, "note.txt")) && fs.readFileSync(path.join(ws, "note.txt"), "utf8") === "hi",
        "the allowed call wrote note.txt");
  const card = (updates.get(sessionId) ?? []).filter((u) => u.toolCallId && u.toolCallId === asked?.toolCall?.toolCallId);
  check(card.some((u) => u.sessionUpdate === "tool_call" && u.status === "in_progress") &&
          card.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"),
        "the tool card goes in_progress then completed", JSON.stringify(card));
  check(text(sessionId) === "done", "the answer streams as agent_message_chunk", text(sessionId));

  // The next turn continues the conversation (the mock sees the earlier tool result and answers).
  const turn2 = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "thanks" }] });
  check(turn2.stopReason === "end_turn", "a second turn on the same session ends", JSON.stringify(turn2));
  check(permissionAsked.filter((p) => p.sessionId === sessionId).length === 1, "the second turn asked nothing");

  // A call the editor rejects does not run; the model is told and the turn still ends.
  const denied = await ctx.request(acp.methods.agent.session.new, { cwd: wsDeny, mcpServers: [] });
  permissionPlan.set(denied.sessionId, "reject");
  const turn3 = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId: denied.sessionId,
    prompt: [{ type: "text", text: "write a note" }],
  });
  check(turn3.stopReason === "end_turn", "a turn with a rejected call ends", JSON.stringify(turn3));
  check(!fs.existsSync(path.join(wsDeny, "note.txt")), "the rejected call did not write");
  check((updates.get(denied.sessionId) ?? []).some((u) => u.status === "failed"), "the rejected call's card fails",
        JSON.stringify(updates.get(denied.sessionId)));

  // session/cancel while the permission question is open: the turn stops as cancelled.
  const cancelled = await ctx.request(acp.methods.agent.session.new, { cwd: wsCancel, mcpServers: [] });
  permissionPlan.set(cancelled.sessionId, "hold");
  const turn4 = ctx.request(acp.methods.agent.session.prompt, {
    sessionId: cancelled.sessionId,
    prompt: [{ type: "text", text: "write a note" }],
  });
  for (let i = 0; i < 200 && !releaseHeld; i++) await new Promise((r) => setTimeout(r, 25));
  check(releaseHeld !== null, "the held turn asked for permission");
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId: cancelled.sessionId });
  releaseHeld?.();
  const stopped = await turn4;
  check(stopped.stopReason === "cancelled", "session/cancel ends the turn as cancelled", JSON.stringify(stopped));
  check(!fs.existsSync(path.join(wsCancel, "note.txt")), "the cancelled call did not write");

  // session/load replays the first session before it answers.
  updates.delete(sessionId);
  const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: ws, mcpServers: [] });
  check(loaded !== undefined, "session/load answers");
  const replay = kinds(sessionId);
  check(text(sessionId, "user_message_chunk").includes("write a note") && text(sessionId, "user_message_chunk").includes("thanks"),
        "the replay has both user messages", JSON.stringify(replay));
  check(replay.includes("tool_call") && replay.includes("tool_call_update") && text(sessionId) === "donedone",
        "the replay has the call, its result and both answers", JSON.stringify(updates.get(sessionId)));

  // The protocol's own errors.
  check((await rejects(ctx.request("session/set_model", { sessionId, modelId: "x" }), -32601)) === true,
        "an unknown method is -32601 Method not found");
  check((await rejects(ctx.request(acp.methods.agent.session.prompt, { sessionId: "s_nope", prompt: [{ type: "text", text: "hi" }] }), -32002)) === true,
        "a prompt to an unknown session is -32002 Resource not found");
  check((await rejects(ctx.request(acp.methods.agent.session.load, { sessionId: "s_nope", cwd: ws, mcpServers: [] }), -32002)) === true,
        "loading an unknown session is -32002");
  check((await rejects(ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "image", data: "AAAA", mimeType: "image/png" }] }), -32602)) === true,
        "an image prompt (not offered) is -32602 Invalid params");
});
agentProc.stdin.end();
const code = await new Promise((resolve) => agentProc.on("exit", (c) => resolve(c)));
check(code === 0, "keel acp exits 0 when the editor closes stdin", `exit ${code}; stderr: ${agentErr}`);

// The session is keel's: `keel chat --session` continues it.
const chat = spawnSync(keel, ["chat", "--session", firstSession, ...modelFlags], { env, input: "one more\n", encoding: "utf8", timeout: 30000 });
check(chat.status === 0 && chat.stdout.includes("done"), "keel chat --session continues the editor's session",
      `exit ${chat.status}; stdout ${chat.stdout}; stderr ${chat.stderr}`);

// An editor that offers its file system: fs_write and fs_read go through it, not the disk.
const wsFiles = path.join(work, "ws-files");
fs.mkdirSync(wsFiles);
fs.writeFileSync(path.join(wsFiles, "draft.txt"), "saved text\n");
const { proc: readMock, url: readUrl } = await startMock("fs_read", '{"path":"draft.txt"}');
const buffers = new Map([[path.join(fs.realpathSync(wsFiles), "draft.txt"), "unsaved text\n"]]);
const editorWrites = [];
async function withFileEditor(url, op) {
  const proc = spawn(keel, ["acp", "--model", "mock-steps-1", "--base-url", url, "--api-key", "test-key", "--approve-mode", "auto"], {
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  proc.stderr.on("data", (d) => (err += d));
  const seen = [];
  const app = acp
    .client({ name: "keel-acp-files-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => seen.push(params.update))
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      if (!buffers.has(params.path)) throw acp.RequestError.resourceNotFound(params.path);
      return { content: buffers.get(params.path) };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      editorWrites.push(params);
      buffers.set(params.path, params.content);
      return {};
    });
  await app.connectWith(acp.ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout)), async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: wsFiles, mcpServers: [] });
    await op(ctx, sessionId, seen);
  });
  proc.stdin.end();
  await new Promise((resolve) => proc.on("exit", resolve));
  return err;
}
let filesErr = await withFileEditor(baseUrl, async (ctx, sessionId) => {
  const r = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write a note" }] });
  check(r.stopReason === "end_turn", "a turn with the editor's file system ends", JSON.stringify(r));
});
check(editorWrites.length === 1 && editorWrites[0].path === path.join(fs.realpathSync(wsFiles), "note.txt") && editorWrites[0].content === "hi",
      "fs_write goes to the editor's fs/write_text_file with the absolute path", JSON.stringify(editorWrites) + filesErr);
check(!fs.existsSync(path.join(wsFiles, "note.txt")), "with the editor's file system, the disk is not written");
filesErr = await withFileEditor(readUrl, async (ctx, sessionId, seen) => {
  const r = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read the draft" }] });
  check(r.stopReason === "end_turn", "a turn reading through the editor ends", JSON.stringify(r));
  const result = seen.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
  check(result?.content?.[0]?.content?.text?.includes("unsaved text"), "fs_read reads the editor's unsaved buffer",
        JSON.stringify(seen));
});
readMock.stdin.end();

mock.stdin.end();
fs.rmSync(work, { recursive: true, force: true });
if (failures > 0) console.log(`${failures} check(s) failed`);
process.exit(failures);
