// The official `openai` npm client against keel's OpenAI-compatible endpoint
// (keel_openai_test_server; see openai_client_test.sh, which starts it and sets):
//   KEEL_OPENAI_URL     the endpoint's /v1 root
//   KEEL_OPENAI_TOKEN   the bearer token it wants
//   KEEL_OPENAI_MODULE  path of build/npm/node_modules/openai/index.mjs
// Exits non-zero on the first failed check.
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const { default: OpenAI } = await import(pathToFileURL(process.env.KEEL_OPENAI_MODULE).href);
const baseURL = process.env.KEEL_OPENAI_URL;
const client = new OpenAI({ baseURL, apiKey: process.env.KEEL_OPENAI_TOKEN, timeout: 20000, maxRetries: 0 });

async function check(name, fn) {
  try {
    await fn();
    console.log(`ok - ${name}`);
  } catch (error) {
    console.error(`not ok - ${name}`);
    throw error;
  }
}

await check('models.list() names the profiles', async () => {
  const ids = [];
  for await (const model of client.models.list()) {
    assert.equal(model.object, 'model');
    assert.equal(model.owned_by, 'keel');
    assert.equal(typeof model.created, 'number');
    ids.push(model.id);
  }
  assert.deepEqual(ids, ['default', 'fast']);
  const fast = await client.models.retrieve('fast');
  assert.equal(fast.id, 'fast');
});

await check('chat.completions.create() returns the answer', async () => {
  const completion = await client.chat.completions.create({
    model: 'default',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say hello' },
    ],
    temperature: 0.2,
    max_tokens: 200,
  });
  assert.equal(completion.object, 'chat.completion');
  assert.match(completion.id, /^chatcmpl-[0-9a-f]{24}$/);
  assert.equal(completion.model, 'default');
  assert.equal(completion.choices.length, 1);
  assert.deepEqual(completion.choices[0].message.role, 'assistant');
  assert.equal(completion.choices[0].message.content, 'Hello from keel.');
  assert.equal(completion.choices[0].finish_reason, 'stop');
  assert.deepEqual(completion.usage, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  assert.equal(completion.keel.tool_calls, 0);
  assert.match(completion.keel.run_id, /^r_/);
});

await check('a run with a tool round answers with its final text', async () => {
  const completion = await client.chat.completions.create({
    model: 'fast',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in the folder?' }] }],
  });
  assert.equal(completion.choices[0].message.content, 'The folder holds notes.txt.');
  assert.deepEqual(completion.usage, { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 });
  assert.equal(completion.keel.tool_calls, 1);
});

await check('the streaming form yields role, content, stop and usage', async () => {
  const stream = await client.chat.completions.create({
    model: 'default',
    messages: [{ role: 'user', content: 'What is in the folder?' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = '';
  const roles = [];
  const finish = [];
  let usage = null;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks += 1;
    assert.equal(chunk.object, 'chat.completion.chunk');
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.role) roles.push(choice.delta.role);
      if (choice.delta.content) content += choice.delta.content;
      if (choice.finish_reason) finish.push(choice.finish_reason);
    }
  }
  assert.equal(content, 'The folder holds notes.txt.');
  assert.ok(!content.includes('Let me look'), 'text of the tool round leaked into the stream');
  assert.deepEqual(roles, ['assistant']);
  assert.deepEqual(finish, ['stop']);
  assert.deepEqual(usage, { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 });
  assert.ok(chunks >= 4, `expected several chunks, got ${chunks}`);
});

await check('an unknown model is a NotFoundError', async () => {
  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    (error) => {
      assert.ok(error instanceof OpenAI.NotFoundError, String(error));
      assert.equal(error.status, 404);
      assert.equal(error.code, 'model_not_found');
      assert.equal(error.param, 'model');
      return true;
    });
});

await check('client tools are a BadRequestError', async () => {
  await assert.rejects(
    client.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
    }),
    (error) => {
      assert.ok(error instanceof OpenAI.BadRequestError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.param, 'tools');
      assert.match(error.message, /client-supplied tools are not supported/);
      return true;
    });
});

await check('a wrong key is an AuthenticationError', async () => {
  const stranger = new OpenAI({ baseURL, apiKey: 'wrong', timeout: 20000, maxRetries: 0 });
  await assert.rejects(stranger.models.list(), (error) => {
    assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
    assert.equal(error.status, 401);
    return true;
  });
});

console.log('openai client test: all checks passed');
