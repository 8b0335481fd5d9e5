// `keel mcp serve` as the official MCP TypeScript SDK's client (@modelcontextprotocol/sdk) sees
// it, over stdio and over Streamable HTTP: the workspace's files as resources (list, read,
// templates, completions, a subscription told of a change), a knowledge skill as a prompt, a
// path outside the workspace refused, and a call the policy asks about put to the client's user.
//
//   node keel_mcp_serve_sdk_test.mjs KEEL SDK_CLIENT_MODULE   (test/support/node_peer_test.sh runs it)
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
const esm = path.dirname(path.dirname(clientModule));  // .../dist/esm
const load = (rel) => import(pathToFileURL(path.join(esm, rel)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { ElicitRequestSchema, ResourceUpdatedNotificationSchema } = await load("types.js");

const root = fs.mkdtempSync(path.join(os.tmpdir(), "keel-mcp-sdk-"));
fs.mkdirSync(path.join(root, "ws"));
const ws = fs.realpathSync(path.join(root, "ws"));
const home = path.join(root, "home");
fs.mkdirSync(home);
fs.writeFileSync(path.join(ws, "notes.md"), "# Notes\nfirst line\n");
fs.mkdirSync(path.join(ws, "src"));
fs.writeFileSync(path.join(ws, "src", "main.cpp"), "int main() {}\n");
fs.mkdirSync(path.join(ws, ".keel", "skills", "greet"), { recursive: true });
fs.writeFileSync(path.join(ws, ".keel", "skills", "greet", "SKILL.md"),
  "---\nname: greet\ndescription: How to greet people in this project\n---\nAlways greet with 'Ahoy'.\n");
const env = { PATH: process.env.PATH, HOME: home, KEEL_HOME: path.join(home, ".keel"), XDG_CONFIG_HOME: path.join(home, ".config") };
const fileUri = (p) => pathToFileURL(p).href;

// Waits until `predicate()` holds, up to `ms`.
async function until(predicate, ms) {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

async function exercise(label, client) {
  await check(`${label}: the server declares resources with subscriptions, prompts and completions`, async () => {
    const caps = client.getServerCapabilities();
    assert.equal(caps.resources?.subscribe, true);
    assert.ok(caps.prompts);
    assert.ok(caps.completions);
  });
  await check(`${label}: the workspace's top-level files are listed, hidden ones are not`, async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    assert.ok(uris.includes(fileUri(path.join(ws, "notes.md"))), JSON.stringify(uris));
    assert.ok(!uris.some((u) => u.includes("/.keel")), JSON.stringify(uris));
  });
  await check(`${label}: a tool with an output schema answers with structured content the SDK checks`, async () => {
    const { tools } = await client.listTools();
    assert.ok(tools.find((t) => t.name === "parse_csv")?.outputSchema, "parse_csv has an outputSchema");
    const r = await client.callTool({ name: "parse_csv", arguments: { text: "a,b\n1,x\n2,y\n" } });
    assert.equal(r.structuredContent.row_count, 2);
    assert.deepEqual(r.structuredContent.rows[1], { a: 2, b: "y" });
  });
  await check(`${label}: a file reads as text with its type`, async () => {
    const { contents } = await client.readResource({ uri: fileUri(path.join(ws, "src", "main.cpp")) });
    assert.equal(contents[0].text, "int main() {}\n");
    assert.equal(contents[0].mimeType, "text/x-c++");
  });
  await check(`${label}: a file outside the workspace is refused`, async () => {
    await assert.rejects(client.readResource({ uri: "file:///etc/passwd" }), /outside the workspace|not found/i);
    await assert.rejects(client.readResource({ uri: fileUri(path.join(ws, "..", "home")) }));
  });
  await check(`${label}: templates and path completions`, async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === "file://{+path}"), JSON.stringify(resourceTemplates));
    const { completion } = await client.complete({
      ref: { type: "ref/resource", uri: "file://{+path}" },
      argument: { name: "path", value: path.join(ws, "s") },
    });
    assert.deepEqual(completion.values, [path.join(ws, "src") + "/"]);
  });
  await check(`${label}: a knowledge skill is a prompt with a task argument`, async () => {
    const { prompts } = await client.listPrompts();
    const greet = prompts.find((p) => p.name === "greet");
    assert.ok(greet, JSON.stringify(prompts));
    assert.equal(greet.description, "How to greet people in this project");
    assert.deepEqual(greet.arguments.map((a) => a.name), ["task"]);
    const got = await client.getPrompt({ name: "greet", arguments: { task: "welcome Ada" } });
    const text = got.messages[0].content.text;
    assert.match(text, /Ahoy/);
    assert.match(text, /Task: welcome Ada/);
    await assert.rejects(client.getPrompt({ name: "greet", arguments: { colour: "red" } }), /colour/);
  });
  await check(`${label}: a subscribed file that changes is reported`, async () => {
    const target = path.join(ws, `watched-${label}.txt`);
    fs.writeFileSync(target, "one\n");
    const updated = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));
    await client.subscribeResource({ uri: fileUri(target) });
    fs.writeFileSync(target, "two, longer\n");
    assert.ok(await until(() => updated.length > 0, 10000), "no notifications/resources/updated within 10 s");
    assert.equal(updated[0], fileUri(target));
    await client.unsubscribeResource({ uri: fileUri(target) });
  });
}

// stdio
{
  const transport = new StdioClientTransport({ command: keel, args: ["mcp", "serve", "-w", ws, "--no-agent"], env, stderr: "pipe" });
  const client = new Client({ name: "keel-sdk-test", version: "1.0.0" });
  await client.connect(transport);
  await exercise("stdio", client);
  await client.close();
}

// A call the approval policy asks about is asked of the client's user (elicitation/create).
{
  const transport = new StdioClientTransport({
    command: keel, args: ["mcp", "serve", "-w", ws, "--no-agent", "--sandbox", "off"], env, stderr: "pipe",
  });
  const client = new Client({ name: "keel-sdk-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  const asked = [];
  let allow = true;
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params);
    return { action: "accept", content: { allow } };
  });
  await client.connect(transport);
  await check("approval: the user allows the shell call and it runs", async () => {
    const r = await client.callTool({ name: "shell", arguments: { command: "echo approved-by-user" } });
    assert.equal(asked.length, 1);
    assert.match(asked[0].message, /shell/);
    assert.equal(asked[0].requestedSchema.properties.allow.type, "boolean");
    assert.ok(!r.isError, JSON.stringify(r));
    assert.match(r.content[0].text, /approved-by-user/);
  });
  await check("approval: the user says no and nothing runs", async () => {
    allow = false;
    const marker = path.join(ws, "should-not-exist");
    const r = await client.callTool({ name: "shell", arguments: { command: `touch ${marker}` } });
    assert.equal(asked.length, 2);
    assert.ok(r.isError);
    assert.match(r.content[0].text, /did not allow it/);
    assert.ok(!fs.existsSync(marker));
  });
  await client.close();
}

// Streamable HTTP, with a token
{
  const token = "sdk-test-token-0123456789abcdef";
  const server = spawn(keel, ["mcp", "serve", "-w", ws, "--no-agent", "--http", "127.0.0.1:0", "--token", token],
    { env, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  server.stderr.on("data", (d) => { log += d; });
  const started = await until(() => /http:\/\/127\.0\.0\.1:\d+\/mcp/.test(log), 10000);
  try {
    assert.ok(started, `keel mcp serve --http did not start: ${log}`);
    const url = new URL(log.match(/http:\/\/127\.0\.0\.1:\d+\/mcp/)[0]);
    const client = new Client({ name: "keel-sdk-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    await exercise("http", client);
    await client.close();
  } finally {
    server.kill("SIGTERM");
  }
}

fs.rmSync(root, { recursive: true, force: true });
finish("keel_mcp_serve_sdk");
