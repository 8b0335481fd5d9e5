// `keel mcp serve` in the stateless 2026-07-28 revision, as the official MCP TypeScript SDK v2
// client (@modelcontextprotocol/client) sees it, over stdio (era found by its server/discover
// probe) and over Streamable HTTP (pinned to 2026-07-28, and probed): discovery, tools,
// resources, prompts, completions, and a call the approval policy asks about answered through the
// client's multi round-trip auto-fulfilment (elicitation handler, requestState echoed); a
// refusal runs nothing.
//
//   node keel_mcp_serve_sdk2_test.mjs KEEL SDK_CLIENT_MODULE   (test/support/node_peer_test.sh runs it)
//
// Every check runs; the exit status is 1 when one failed.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { check, finish } from "../api/client_checks.mjs";

const [keel, clientModule] = process.argv.slice(2);
const dist = path.dirname(clientModule);
const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(clientModule).href);
const { StdioClientTransport } = await import(pathToFileURL(path.join(dist, "stdio.mjs")).href);

const root = fs.mkdtempSync(path.join(os.tmpdir(), "keel-mcp-sdk2-"));
fs.mkdirSync(path.join(root, "ws"));
const ws = fs.realpathSync(path.join(root, "ws"));
const home = path.join(root, "home");
fs.mkdirSync(home);
fs.writeFileSync(path.join(ws, "notes.md"), "# Notes\nfirst line\n");
fs.mkdirSync(path.join(ws, ".keel", "skills", "greet"), { recursive: true });
fs.writeFileSync(path.join(ws, ".keel", "skills", "greet", "SKILL.md"),
  "---\nname: greet\ndescription: How to greet people in this project\n---\nAlways greet with 'Ahoy'.\n");
const env = { PATH: process.env.PATH, HOME: home, KEEL_HOME: path.join(home, ".keel"), XDG_CONFIG_HOME: path.join(home, ".config") };
const fileUri = (p) => pathToFileURL(p).href;

async function until(predicate, ms) {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

// A v2 client that declares elicitation and answers keel's approval question with `answers.allow`.
function makeClient(mode, answers) {
  const client = new Client({ name: "keel-sdk2-test", version: "1.0.0" },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode } });
  client.setRequestHandler("elicitation/create", async (request) => {
    answers.asked.push(request.params);
    return { action: "accept", content: { allow: answers.allow } };
  });
  return client;
}

async function exercise(label, client, answers) {
  await check(`${label}: the connection is the 2026-07-28 era`, async () => {
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    assert.equal(client.getServerVersion()?.name, "keel");
    const caps = client.getServerCapabilities();
    assert.ok(caps.tools && caps.resources && caps.prompts, JSON.stringify(caps));
  });
  await check(`${label}: tools are listed with keel's built-ins`, async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("fs_read") && names.includes("shell"), JSON.stringify(names));
  });
  await check(`${label}: a read-only tool runs`, async () => {
    const r = await client.callTool({ name: "fs_read", arguments: { path: "notes.md" } });
    assert.ok(!r.isError, JSON.stringify(r));
    assert.match(r.content[0].text, /first line/);
  });
  await check(`${label}: a tool with an output schema answers with structured content`, async () => {
    const { tools } = await client.listTools();
    const math = tools.find((t) => t.name === "math_aggregate");
    assert.deepEqual(math?.outputSchema?.required, ["op", "value", "count", "skipped"]);
    const r = await client.callTool({ name: "math_aggregate", arguments: { op: "max", values: [3, 9, 4] } });
    assert.deepEqual(r.structuredContent, { op: "max", value: 9, count: 3, skipped: 0 });
  });
  await check(`${label}: a workspace file reads as a resource`, async () => {
    const { contents } = await client.readResource({ uri: fileUri(path.join(ws, "notes.md")) });
    assert.equal(contents[0].text, "# Notes\nfirst line\n");
    await assert.rejects(client.readResource({ uri: "file:///etc/passwd" }));
  });
  await check(`${label}: a knowledge skill is a prompt, and completions answer`, async () => {
    const got = await client.getPrompt({ name: "greet", arguments: { task: "welcome Ada" } });
    assert.match(got.messages[0].content.text, /Ahoy/);
    const { completion } = await client.complete({
      ref: { type: "ref/resource", uri: "file://{+path}" },
      argument: { name: "path", value: path.join(ws, "no") },
    });
    assert.deepEqual(completion.values, [path.join(ws, "notes.md")]);
  });
  await check(`${label}: an approval is a round trip the client fulfils, and the call runs once`, async () => {
    answers.allow = true;
    const before = answers.asked.length;
    const marker = path.join(ws, `approved-${label.replace(" ", "-")}`);
    const r = await client.callTool({ name: "shell", arguments: { command: `echo approved-by-user && touch ${marker}` } });
    assert.equal(answers.asked.length, before + 1);
    assert.match(answers.asked[before].message, /shell/);
    assert.ok(!r.isError, JSON.stringify(r));
    assert.match(r.content[0].text, /approved-by-user/);
    assert.ok(fs.existsSync(marker));
  });
  await check(`${label}: a user who says no gets a refusal and nothing runs`, async () => {
    answers.allow = false;
    const marker = path.join(ws, `refused-${label.replace(" ", "-")}`);
    const r = await client.callTool({ name: "shell", arguments: { command: `touch ${marker}` } });
    assert.ok(r.isError, JSON.stringify(r));
    assert.match(r.content[0].text, /did not allow it/);
    assert.ok(!fs.existsSync(marker));
  });
}

// stdio: the client probes with server/discover and stays modern.
{
  const answers = { asked: [], allow: true };
  const client = makeClient("auto", answers);
  const transport = new StdioClientTransport({
    command: keel, args: ["mcp", "serve", "-w", ws, "--no-agent", "--sandbox", "off"], env, stderr: "pipe",
  });
  await client.connect(transport);
  await exercise("stdio", client, answers);
  await client.close();
}

// Streamable HTTP with a token: pinned to 2026-07-28, then probed.
{
  const token = "sdk2-test-token-0123456789abcdef";
  const server = spawn(keel, ["mcp", "serve", "-w", ws, "--no-agent", "--sandbox", "off", "--http", "127.0.0.1:0", "--token", token],
    { env, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  server.stderr.on("data", (d) => { log += d; });
  const started = await until(() => /http:\/\/127\.0\.0\.1:\d+\/mcp/.test(log), 10000);
  try {
    assert.ok(started, `keel mcp serve --http did not start: ${log}`);
    const url = new URL(log.match(/http:\/\/127\.0\.0\.1:\d+\/mcp/)[0]);
    const auth = { requestInit: { headers: { Authorization: `Bearer ${token}` } } };
    for (const [label, mode] of [["http pinned", { pin: "2026-07-28" }], ["http probed", "auto"]]) {
      const answers = { asked: [], allow: true };
      const client = makeClient(mode, answers);
      await client.connect(new StreamableHTTPClientTransport(url, auth));
      await exercise(label, client, answers);
      await client.close();
    }
    await check("http: a request without the token is refused before any MCP work", async () => {
      const answers = { asked: [], allow: true };
      const client = makeClient({ pin: "2026-07-28" }, answers);
      await assert.rejects(client.connect(new StreamableHTTPClientTransport(url)));
    });
  } finally {
    server.kill("SIGTERM");
  }
}

fs.rmSync(root, { recursive: true, force: true });
finish("keel_mcp_serve_sdk2");
