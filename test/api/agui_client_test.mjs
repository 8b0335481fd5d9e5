// The AG-UI client (@ag-ui/client's HttpAgent, as CopilotKit and other front ends use it) against
// keel's AG-UI endpoint (keel_openai_test_server; see agui_client_test.sh, which starts it through
// openai_client_test.sh and sets):
//   KEEL_OPENAI_URL    the server's /v1 root; the endpoint is /agui beside it
//   KEEL_OPENAI_TOKEN  the bearer token it wants
//   KEEL_NPM_MODULES   build/npm/node_modules
// The client validates every event against the protocol's schema and checks their order; it warns
// when it strips something the protocol does not name, and such a warning fails this test too.
// Every check runs; the exit status is 1 when one failed (client_checks.mjs).
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

import { check, finish } from './client_checks.mjs';

const modules = process.env.KEEL_NPM_MODULES;
const { HttpAgent } = await import(pathToFileURL(`${modules}/@ag-ui/client/dist/index.mjs`).href);
const root = process.env.KEEL_OPENAI_URL.replace(/\/v1$/, '');
const url = `${root}/agui`;
const headers = { Authorization: `Bearer ${process.env.KEEL_OPENAI_TOKEN}` };

const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
  warnings.push(args.map(String).join(' '));
  warn(...args);
};

// The events' types, with runs of TEXT_MESSAGE_CONTENT shown once.
function types(events) {
  const out = [];
  for (const e of events) {
    if (e.type === 'TEXT_MESSAGE_CONTENT' && out.at(-1) === e.type) continue;
    out.push(e.type);
  }
  return out;
}

// Runs `agent` once, recording every event it applied.
async function run(agent, parameters = {}, extra = {}) {
  const events = [];
  const result = await agent.runAgent(parameters, { onEvent: ({ event }) => { events.push(event); }, ...extra });
  return { events, result };
}

// The conversation the server's store holds for a session, as "role: content" lines (the system
// prompt left out).
async function stored(sessionId) {
  const response = await fetch(`${root}/test/session-messages?session=${encodeURIComponent(sessionId)}`, { headers });
  assert.equal(response.status, 200);
  const body = await response.json();
  return body.messages.filter((m) => m.role !== 'system').map((m) => `${m.role}: ${m.content}`);
}

const folder = new HttpAgent({ url, headers, threadId: 'thread-folder' });
let folderSession = '';

await check('a run with a keel tool round streams the events and the answer', async () => {
  folder.addMessage({ id: 'u1', role: 'user', content: 'What is in the folder?' });
  const { events, result } = await run(folder, { runId: 'run-folder-1' });
  assert.deepEqual(types(events), [
    'RUN_STARTED', 'STATE_SNAPSHOT',
    'STATE_SNAPSHOT', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END',
    'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT',
    'STATE_SNAPSHOT', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END',
    'STATE_SNAPSHOT', 'RUN_FINISHED',
  ]);
  assert.equal(events[0].threadId, 'thread-folder');
  assert.equal(events[0].runId, 'run-folder-1');
  assert.equal(events.at(-1).runId, 'run-folder-1');

  const messages = folder.messages;
  assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
  assert.equal(messages[1].content, 'Let me look at the folder.');
  assert.equal(messages[1].toolCalls.length, 1);
  assert.equal(messages[1].toolCalls[0].function.name, 'fs_list');
  assert.deepEqual(JSON.parse(messages[1].toolCalls[0].function.arguments), { path: '.' });
  assert.equal(messages[2].toolCallId, messages[1].toolCalls[0].id);
  assert.match(messages[2].content, /notes\.txt/);
  assert.equal(messages[3].content, 'The folder holds notes.txt.');
  assert.equal(result.newMessages.length, 3);

  const keel = folder.state.keel;
  assert.match(keel.session_id, /^s_[0-9a-f]{32}$/);
  assert.match(keel.run_id, /^r_[0-9a-f]{32}$/);
  assert.equal(keel.status, 'finished');
  assert.equal(keel.round, 2);
  folderSession = keel.session_id;
  const lines = await stored(folderSession);
  assert.equal(lines.length, 4);
  assert.deepEqual([lines[0], lines[1], lines[3]], [
    'user: What is in the folder?',
    'assistant: Let me look at the folder.',
    'assistant: The folder holds notes.txt.',
  ]);
  assert.equal(lines[2], `tool: ${messages[2].content}`);
});

await check('a second run on the same thread continues its session and sees the history', async () => {
  folder.addMessage({ id: 'u2', role: 'user', content: 'What did I ask earlier?' });
  await run(folder, { runId: 'run-folder-2' });
  assert.equal(folder.messages.at(-1).role, 'assistant');
  assert.equal(folder.messages.at(-1).content, 'Earlier you asked: What is in the folder?');
  assert.equal(folder.state.keel.session_id, folderSession);
  const lines = await stored(folderSession);
  assert.equal(lines.length, 6);
  assert.deepEqual(lines.slice(4), ['user: What did I ask earlier?', 'assistant: Earlier you asked: What is in the folder?']);
});

await check('a client-side tool is handed over and its result continues the run', async () => {
  const weather = new HttpAgent({ url, headers, threadId: 'thread-weather' });
  const tools = [{
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  }];
  weather.addMessage({ id: 'w1', role: 'user', content: 'What is the weather in Paris?' });
  let finished;
  const first = await run(weather, { tools }, { onRunFinishedEvent: (params) => { finished = params; } });
  assert.equal(first.events.filter((e) => e.type === 'TOOL_CALL_RESULT').length, 0);
  const call = weather.messages.at(-1);
  assert.equal(call.role, 'assistant');
  assert.equal(call.toolCalls.length, 1);
  assert.equal(call.toolCalls[0].function.name, 'get_weather');
  assert.deepEqual(JSON.parse(call.toolCalls[0].function.arguments), { city: 'Paris' });
  assert.equal(finished.outcome, 'success');
  assert.deepEqual(finished.pendingToolCallIds, [call.toolCalls[0].id]);

  weather.addMessage({ id: 'w2', role: 'tool', toolCallId: call.toolCalls[0].id, content: 'sunny, 22 C' });
  await run(weather, { tools });
  assert.equal(weather.messages.at(-1).role, 'assistant');
  assert.equal(weather.messages.at(-1).content, 'It is sunny in Paris.');
  const lines = await stored(weather.state.keel.session_id);
  assert.deepEqual(lines, [
    'user: What is the weather in Paris?',
    'assistant: ',
    'tool: sunny, 22 C',
    'assistant: It is sunny in Paris.',
  ]);
});

await check('an aborted run leaves its session intact for the next run', async () => {
  const story = new HttpAgent({ url, headers, threadId: 'thread-abort' });
  story.addMessage({ id: 's1', role: 'user', content: 'Tell me a long story, slowly' });
  let aborted = false;
  const started = Date.now();
  try {
    await story.runAgent({}, {
      onTextMessageContentEvent: () => {
        if (!aborted) {
          aborted = true;
          story.abortRun();
        }
      },
    });
  } catch (error) {
    assert.equal(error.name, 'AbortError', String(error));
  }
  assert.ok(aborted, 'the run streamed text before it was aborted');
  assert.ok(Date.now() - started < 8000, 'the abort ended the run at once');
  const session = story.state.keel.session_id;
  assert.match(session, /^s_/);

  story.addMessage({ id: 's2', role: 'user', content: 'What did I ask earlier?' });
  await run(story);
  assert.equal(story.messages.at(-1).content, 'Earlier you asked: Tell me a long story, slowly');
  assert.equal(story.state.keel.session_id, session);
  const lines = await stored(session);
  assert.deepEqual(lines, [
    'user: Tell me a long story, slowly',
    'user: What did I ask earlier?',
    'assistant: Earlier you asked: Tell me a long story, slowly',
  ]);
});

await check('requests keel cannot run are HTTP errors before any event', async () => {
  const empty = new HttpAgent({ url, headers, threadId: 'thread-empty' });
  const quiet = console.error;
  console.error = () => {};  // the client logs a failed run before it rejects
  try {
    await assert.rejects(run(empty), (error) => {
      assert.equal(error.status, 400);
      assert.equal(error.payload.error.code, 'nothing_to_run');
      return true;
    });
    const stranger = new HttpAgent({ url, headers: { Authorization: 'Bearer wrong' }, threadId: 'thread-x' });
    stranger.addMessage({ id: 'x1', role: 'user', content: 'hi' });
    await assert.rejects(run(stranger), (error) => {
      assert.equal(error.status, 401);
      return true;
    });
  } finally {
    console.error = quiet;
  }
});

await check('the client accepted every event as sent', async () => {
  assert.deepEqual(warnings.filter((w) => w.includes('[ag-ui]')), []);
});

finish('agui_client_test');
