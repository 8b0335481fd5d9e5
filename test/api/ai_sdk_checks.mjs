// The Vercel AI SDK's checks, the same whichever keel endpoint its provider drives (chat
// completions through @ai-sdk/openai-compatible, the Responses API through @ai-sdk/openai): a
// client tool loop whole and streamed, structured output whole and streamed, and a failed run that
// is not re-run. `model` is the provider's model for the "default" profile; `via` goes into the
// check names; `modelCalls` counts the mock model's calls.
import assert from 'node:assert/strict';
import { check } from './client_checks.mjs';

export async function aiSdkChecks({ ai, z, model, via, modelCalls }) {
  const { generateText, streamText, Output, tool, stepCountIs } = ai;
  const weather = tool({
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `${city}: sunny, 21C`,
  });
  const answer = Output.object({ schema: z.object({ city: z.string(), sunny: z.boolean() }) });

  await check(`AI SDK generateText${via} runs the client tool loop`, async () => {
    const result = await generateText({
      model,
      prompt: 'What is the weather in Paris?',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    assert.equal(result.text, 'It is sunny in Paris.');
    assert.equal(result.steps.length, 2);
    assert.equal(result.steps[0].toolCalls[0].toolName, 'get_weather');
    assert.deepEqual(result.steps[0].toolCalls[0].input, { city: 'Paris' });
  });

  await check(`AI SDK streamText${via} runs the client tool loop`, async () => {
    const result = streamText({
      model,
      prompt: 'Stream the weather in Paris',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    let text = '';
    for await (const part of result.textStream) text += part;
    assert.equal(text, 'It is sunny in Paris.');
    assert.equal((await result.steps).length, 2);
  });

  await check(`AI SDK structured output${via} gets a validated object`, async () => {
    const { output } = await generateText({ model, prompt: 'Answer in JSON', output: answer });
    assert.deepEqual(output, { city: 'Paris', sunny: true });
  });

  await check(`AI SDK streamed structured output${via} gets a validated object`, async () => {
    const result = streamText({ model, prompt: 'Answer in JSON', output: answer });
    assert.deepEqual(await result.output, { city: 'Paris', sunny: true });
  });

  await check(`AI SDK${via} does not re-run a failed run`, async () => {
    const before = await modelCalls();
    await assert.rejects(generateText({ model, prompt: 'please fail' }));
    assert.equal(await modelCalls() - before, 1);
  });
}
