// `keel mcp serve` driven by the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli), the
// tool people use to poke at an MCP server, over stdio and over Streamable HTTP: tools, a call,
// resources, a file read, prompts and a skill prompt with an argument.
//
//   node keel_mcp_serve_inspector_test.mjs KEEL INSPECTOR_CLI   (test/support/node_peer_test.sh runs it)
//
// Every check runs; the exit status is 1 when one failed.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { check, finish } from "../api/client_checks.mjs";

const [keelArg, inspector] = process.argv.slice(2);
const keel = path.resolve(keelArg);
const root = fs.mkdtempSync(path.join(os.tmpdir(), "keel-mcp-inspector-"));
fs.mkdirSync(path.join(root, "ws"));
const ws = fs.realpathSync(path.join(root, "ws"));
const home = path.join(root, "home");
fs.mkdirSync(home);
fs.writeFileSync(path.join(ws, "notes.md"), "inspected notes\n");
fs.mkdirSync(path.join(ws, ".keel", "skills", "review"), { recursive: true });
fs.writeFileSync(path.join(ws, ".keel", "skills", "review", "SKILL.md"),
  "---\nname: review\ndescription: How to review a change here\n---\nRead the tests first.\n");
const env = {
  PATH: process.env.PATH, HOME: home, KEEL_HOME: path.join(home, ".keel"), XDG_CONFIG_HOME: path.join(home, ".config"),
};

// The inspector's JSON answer to one method call.
function inspect(target, args) {
  return new Promise((resolve, reject) => {
    // From its own folder: the CLI finds its package.json relative to the working directory.
    const options = { env, timeout: 30000, cwd: path.dirname(inspector) };
    execFile(process.execPath, [inspector, ...target, ...args], options, (error, stdout, stderr) => {
      if (error) return reject(new Error(`inspector ${args.join(" ")} failed: ${stderr || error.message}`));
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error(`inspector printed no JSON: ${stdout}`));
      }
    });
  });
}

async function exercise(label, target) {
  await check(`${label}: tools/list shows keel's tools`, async () => {
    const { tools } = await inspect(target, ["--method", "tools/list"]);
    assert.ok(tools.some((t) => t.name === "fs_read"), JSON.stringify(tools.map((t) => t.name)));
  });
  await check(`${label}: tools/call runs fs_read`, async () => {
    const r = await inspect(target, ["--method", "tools/call", "--tool-name", "fs_read", "--tool-arg", "path=notes.md"]);
    assert.ok(!r.isError, JSON.stringify(r));
    assert.match(r.content[0].text, /inspected notes/);
  });
  await check(`${label}: resources/list and resources/read`, async () => {
    const uri = pathToFileURL(path.join(ws, "notes.md")).href;
    const { resources } = await inspect(target, ["--method", "resources/list"]);
    assert.ok(resources.some((r) => r.uri === uri), JSON.stringify(resources));
    const { contents } = await inspect(target, ["--method", "resources/read", "--uri", uri]);
    assert.equal(contents[0].text, "inspected notes\n");
  });
  await check(`${label}: prompts/list and prompts/get`, async () => {
    const { prompts } = await inspect(target, ["--method", "prompts/list"]);
    assert.ok(prompts.some((p) => p.name === "review"), JSON.stringify(prompts));
    const got = await inspect(target, ["--method", "prompts/get", "--prompt-name", "review", "--prompt-args", "task=the parser"]);
    assert.match(got.messages[0].content.text, /Read the tests first\.[\s\S]*Task: the parser/);
  });
}

await exercise("stdio", [keel, "mcp", "serve", "-w", ws, "--no-agent"]);

{
  const token = "inspector-token-0123456789abcdef";
  const server = spawn(keel, ["mcp", "serve", "-w", ws, "--no-agent", "--http", "127.0.0.1:0", "--token", token],
    { env, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  server.stderr.on("data", (d) => { log += d; });
  for (let i = 0; i < 200 && !/http:\/\/127\.0\.0\.1:\d+\/mcp/.test(log); ++i) await new Promise((r) => setTimeout(r, 50));
  try {
    const url = log.match(/http:\/\/127\.0\.0\.1:\d+\/mcp/)?.[0];
    await check("http: keel mcp serve --http starts", async () => assert.ok(url, log));
    if (url) {
      await exercise("http", [url, "--transport", "http", "--header", `Authorization: Bearer ${token}`]);
      await check("http: without the token the inspector is refused", async () => {
        await assert.rejects(inspect([url, "--transport", "http"], ["--method", "tools/list"]));
      });
    }
  } finally {
    server.kill("SIGTERM");
  }
}

fs.rmSync(root, { recursive: true, force: true });
finish("keel_mcp_serve_inspector");
