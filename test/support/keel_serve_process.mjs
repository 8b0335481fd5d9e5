// What the Node peer tests of `keel serve` share: a keel_mock_model_server and a `keel serve` in a
// fresh HOME and workspace under the system's temporary folder, both on 127.0.0.1.
//
//   const s = await startServe({ keel, mockServer, mockArgs: ["--tool", "fs_write", ...],
//                                serveArgs: ["--approve-mode", "confirm"], token });
//   ... fetch(`${s.base}/...`) ... s.modelFlags for `keel chat` ...
//   await s.stop();   // stops both and removes the folder
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Resolves with the first group of `pattern` once `proc`'s `stream` prints it; rejects when the
// process exits first.
export function waitForLine(proc, stream, pattern) {
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

export async function startServe({ keel, mockServer, mockArgs = [], serveArgs = [], token, model = "mock-steps-1" }) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "keel-serve-peer-"));
  const home = path.join(work, "home");
  const ws = path.join(work, "ws");
  for (const d of [home, ws]) fs.mkdirSync(d, { recursive: true });
  const mock = spawn(mockServer, mockArgs, { stdio: ["pipe", "pipe", "inherit"] });
  const modelUrl = await waitForLine(mock, "stdout", /listening (http:\/\/127\.0\.0\.1:\d+\/v1)/);
  const env = { PATH: process.env.PATH, HOME: home, KEEL_HOME: path.join(home, ".keel"), XDG_CONFIG_HOME: path.join(home, ".config") };
  const modelFlags = ["--model", model, "--base-url", modelUrl, "--api-key", "test-key"];
  const serve = spawn(keel, ["serve", "--port", "0", "--token", token, ...serveArgs, ...modelFlags], {
    cwd: ws,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const base = await waitForLine(serve, "stderr", /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const stop = async () => {
    serve.kill("SIGTERM");
    if (serve.exitCode === null) await new Promise((resolve) => serve.on("exit", resolve));
    mock.stdin.end();
    fs.rmSync(work, { recursive: true, force: true });
  };
  return { base, serve, mock, work, ws, env, modelFlags, stop };
}

// keel serve with --approve-mode confirm on a model that writes note.txt ("hi") with fs_write
// once per turn and then answers "done": each turn's call waits for an approval.
export function startApprovalServe({ keel, mockServer, token }) {
  return startServe({
    keel,
    mockServer,
    mockArgs: ["--tool", "fs_write", "--args", '{"path":"note.txt","content":"hi"}'],
    serveArgs: ["--approve-mode", "confirm"],
    token,
  });
}
